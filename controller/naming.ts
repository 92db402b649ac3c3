// Revision names: `<service>-<10 hex>`, derived from what the revision runs, so an equal revision is found
// by name instead of by searching.
import { createHash } from "node:crypto";

/** How many hex characters of the SHA-256 a revision name carries. */
export const REVISION_HASH_LENGTH = 10;

/** JSON with the keys of every object sorted and undefined members left out: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What a revision name stands for: the Service's template and the artifact, never credentials. */
export interface RevisionIdentity {
  template: unknown;
  bundle: { repo: string; digest: string };
}

/** `<service>-` + the first 10 hex of SHA-256(canonicalJson({ template, bundle: { repo, digest } })). */
export function revisionName(service: string, { template, bundle }: RevisionIdentity): string {
  const identity = canonicalJson({ template, bundle: { repo: bundle.repo, digest: bundle.digest } });
  const hash = createHash("sha256").update(identity).digest("hex");
  return `${service}-${hash.slice(0, REVISION_HASH_LENGTH)}`;
}
