// Property-level diffs for the engine: which paths of the declared object change, how, and whether the
// change replaces the object. The engine prints them (`~ spec.template.spec.env[0].value`) instead of
// whole top-level values.
import { isDeepStrictEqual } from "node:util";
import { jsonPath } from "../../sdk/schema/minting";
import { isRecord } from "../../sdk/shared/records";
import type { Path } from "./wire-secrets";

export type ChangeKind = "add" | "delete" | "update";

export interface PropertyChange {
  kind: ChangeKind;
  /** The change cannot be made in place: the object is replaced. */
  replace: boolean;
}

/** A Pulumi property path is the schema's JSON path: `metadata.labels["app.example.dev/tier"]`. */
export const propertyPath: (path: Path) => string = jsonPath;

/** The leaf paths where `before` and `after` differ; objects and lists are compared member by member. */
function changedPaths(before: unknown, after: unknown, path: Path, found: [Path, ChangeKind][]): void {
  if (isDeepStrictEqual(before, after)) return;
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      changedPaths(before[key], after[key], [...path, key], found);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let index = 0; index < Math.max(before.length, after.length); index++) {
      changedPaths(before[index], after[index], [...path, index], found);
    }
    return;
  }
  found.push([path, before === undefined ? "add" : after === undefined ? "delete" : "update"]);
}

/** Whether `path` lies under (or above) one of the replacing paths, given as property paths. */
function replaces(path: string, replacing: readonly string[]): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return replacing.some((reason) => within(path, reason) || within(reason, path));
}

/**
 * The changes between the object state holds and the declared one, over what a write sends (the name, labels,
 * annotations and spec), each marked replace when a path of `replacing` (the core's replace reasons) covers it.
 */
export function detailedDiff(
  olds: { metadata?: Record<string, unknown>; spec?: unknown },
  news: { metadata?: Record<string, unknown>; spec?: unknown },
  replacing: readonly string[],
): Record<string, PropertyChange> {
  const found: [Path, ChangeKind][] = [];
  for (const field of ["name", "labels", "annotations"]) {
    changedPaths(olds.metadata?.[field], news.metadata?.[field], ["metadata", field], found);
  }
  changedPaths(olds.spec, news.spec, ["spec"], found);
  return Object.fromEntries(
    found.map(([path, kind]) => {
      const text = propertyPath(path);
      return [text, { kind, replace: replaces(text, replacing) }];
    }),
  );
}
