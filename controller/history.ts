import type { ApiObject } from "../sdk/client/types";

// revisionHistoryLimit: which revisions of a Service go, oldest first, never a protected one.

/** Creation order: creationTimestamp (whole seconds), then resourceVersion within the same second. */
function compareAge(a: ApiObject, b: ApiObject): number {
  const [createdA, createdB] = [a.metadata.creationTimestamp ?? "", b.metadata.creationTimestamp ?? ""];
  if (createdA !== createdB) return createdA < createdB ? -1 : 1;
  return Number(a.metadata.resourceVersion ?? 0) - Number(b.metadata.resourceVersion ?? 0);
}

/**
 * Names of the revisions to delete so that at most `limit` remain: the oldest unprotected ones. Protected
 * revisions (the latest, the pinned live one) stay even when that leaves more than `limit`.
 */
export function revisionsToPrune(
  revisions: readonly ApiObject[],
  limit: number,
  protectedNames: ReadonlySet<string>,
): string[] {
  const excess = revisions.length - limit;
  if (excess <= 0) return [];
  return [...revisions]
    .sort(compareAge)
    .map((revision) => revision.metadata.name)
    .filter((name) => !protectedNames.has(name))
    .slice(0, excess);
}
