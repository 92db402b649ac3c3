import { randomBytes } from "node:crypto";
import { isUnknown } from "../sdk/schema";
import type { ObjectInputs } from "./state";

/**
 * Generated names stay within 63 characters, like Kubernetes' generateName: a Service's name is also the
 * value of the `compute.example.dev/service` label on its revisions, and label values stop at 63.
 */
const MAX_GENERATED_LENGTH = 63;
const SUFFIX_LENGTH = 6; // "-" and 5 hex

/**
 * A DNS-1123 name from the Pulumi logical name plus a random suffix, so that replacements and copies of a
 * stack do not collide: "My_API" becomes "my-api-3f9c1".
 */
export function autoName(logicalName: string): string {
  const base = logicalName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_GENERATED_LENGTH - SUFFIX_LENGTH)
    .replace(/^-+|-+$/g, "");
  return `${base || "object"}-${randomBytes(3).toString("hex").slice(0, 5)}`;
}

/** The object's name: the program's, else the one generated earlier (kept in state), else a new one. */
export function chooseName(
  olds: Partial<ObjectInputs>,
  news: ObjectInputs,
): Pick<ObjectInputs, "metadata" | "autoNamed"> {
  const metadata = news.metadata ?? {};
  // Unknown during preview (computed from another resource's output): leave it for the engine to resolve.
  if (isUnknown(metadata) || metadata.name !== undefined) return { metadata, autoNamed: false };
  const keep = olds.autoNamed && olds.metadata?.name !== undefined && olds.logicalName === news.logicalName;
  return {
    metadata: {
      ...metadata,
      name: keep ? (olds.metadata?.name as string) : autoName(news.logicalName ?? ""),
    },
    autoNamed: true,
  };
}
