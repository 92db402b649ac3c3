import type { KindName } from "../../../sdk/schema";
import { isRecord, withoutUndefined } from "../../records";
import { objectStructure, STATUS_STRUCTURE, type Structure } from "./structure";

/** The part of an object managers own: client metadata and the spec, or the status alone through `/status`. */
export interface Tracked {
  metadata?: Record<string, unknown>;
  spec?: unknown;
  status?: unknown;
}

export const TRACKED_METADATA = ["labels", "annotations", "ownerReferences", "finalizers"] as const;

/** Where a write goes: the object itself (`spec`), or its status subresource (`status`). */
export type WrittenPart = "spec" | "status";

export function trackedOf(
  object: { metadata?: unknown; spec?: unknown; status?: unknown } | undefined,
  part: WrittenPart = "spec",
): Tracked {
  // Before a create there is an object with metadata (its name) and nothing else, as in Kubernetes.
  if (object === undefined) return { metadata: {} };
  // A status write owns the status alone: kube-apiserver's status strategy resets metadata and spec in the
  // managed fields (metadata since 1.36; the stored metadata never changes through /status).
  const metadata = isRecord(object.metadata) && part === "spec" ? object.metadata : {};
  const kept = withoutUndefined(Object.fromEntries(TRACKED_METADATA.map((key) => [key, metadata[key]])));
  // Metadata always exists (it holds the name), so it is never added or removed as a whole.
  return withoutUndefined({ metadata: kept, [part]: object[part] ?? undefined });
}

/** The structure of what `part` writes own. */
export function structureOf(kind: KindName, part: WrittenPart): Structure {
  return part === "status" ? STATUS_STRUCTURE : objectStructure(kind);
}
