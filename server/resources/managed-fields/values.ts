import { isDeepStrictEqual } from "node:util";
import { isRecord } from "../../records";
import { FieldSet, fieldElement, keyElement, type Path, type PathElement } from "./fieldset";
import type { Structure } from "./structure";

/**
 * Structured merge on JSON values, guided by a `Structure`: what structured-merge-diff does for
 * Kubernetes' server-side apply, for the shapes this API has. Fields a struct does not define are not
 * tracked (admission drops or refuses them) and merge as atomic values.
 */

type ListStructure = Extract<Structure, { type: "list" }>;

/** A problem with an applied configuration, at a JSON path (`spec.template.spec.env[1]`). */
export interface StructureProblem {
  field: string;
  message: string;
}

/** Items of a map-list with their path elements; items without usable keys are left out. */
function indexItems(structure: ListStructure, items: readonly unknown[]) {
  const indexed: { element: PathElement; item: Record<string, unknown> }[] = [];
  for (const item of items) {
    if (!isRecord(item) || !structure.keys.every((key) => isScalar(item[key]))) continue;
    indexed.push({ element: keyElement(item, structure.keys), item });
  }
  return indexed;
}

function isScalar(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function children(structure: Structure, value: Record<string, unknown>): [string, Structure][] {
  if (structure.type === "struct") {
    return Object.keys(value).flatMap((key) => {
      const field = structure.fields[key];
      return field === undefined ? [] : [[key, field] as [string, Structure]];
    });
  }
  if (structure.type === "map") return Object.keys(value).map((key) => [key, structure.values]);
  return [];
}

/**
 * What an applied configuration may not hold: an item of a map-list without its keys, or two items with
 * the same keys (which one would win?). Kubernetes refuses both.
 */
export function configProblems(structure: Structure, value: unknown, at = ""): StructureProblem[] {
  if (value === null || value === undefined) return [];
  if ((structure.type === "struct" || structure.type === "map") && isRecord(value)) {
    return children(structure, value).flatMap(([key, child]) =>
      configProblems(child, value[key], at === "" ? key : `${at}.${key}`),
    );
  }
  if (structure.type !== "list" || !Array.isArray(value)) return [];
  const problems: StructureProblem[] = [];
  const seen = new Map<PathElement, number>();
  value.forEach((item, index) => {
    const field = `${at}[${index}]`;
    const missing = structure.keys.filter((key) => !isRecord(item) || !isScalar(item[key]));
    if (missing.length > 0) {
      problems.push({
        field,
        message: `${field}: an item of ${at} needs ${missing.map((key) => `"${key}"`).join(" and ")}: items are merged by ${structure.keys.join(", ")}`,
      });
      return;
    }
    const element = keyElement(item as Record<string, unknown>, structure.keys);
    const first = seen.get(element);
    if (first !== undefined) {
      problems.push({
        field,
        message: `${field}: duplicate entries for key ${describeKey(item as Record<string, unknown>, structure.keys)} (also ${at}[${first}]); each item of ${at} needs its own ${structure.keys.join(", ")}`,
      });
      return;
    }
    seen.set(element, index);
    problems.push(...configProblems(structure.items, item, field));
  });
  return problems;
}

function describeKey(item: Record<string, unknown>, keys: readonly string[]): string {
  return `[${keys.map((key) => `${key}=${JSON.stringify(item[key])}`).join(",")}]`;
}

/**
 * The fields an applied configuration sets: every value it holds, every item of a map-list (the item
 * itself and its fields), but not the objects and maps on the way (setting `spec.runtime.timeout` claims
 * that field, not the whole runtime).
 */
export function fieldSetOf(structure: Structure, value: unknown, path: Path = []): FieldSet {
  const set = new FieldSet();
  collect(structure, value, path, set, false);
  return set;
}

/** Every node of a value, containers included: what is added when the value appears. */
export function allPathsOf(structure: Structure, value: unknown, path: Path): FieldSet {
  const set = new FieldSet();
  collect(structure, value, path, set, true);
  return set;
}

function collect(structure: Structure, value: unknown, path: Path, set: FieldSet, containers: boolean): void {
  if (value === null || value === undefined) return;
  if ((structure.type === "struct" || structure.type === "map") && isRecord(value)) {
    if (containers && path.length > 0) set.insert(path);
    for (const [key, child] of children(structure, value)) {
      collect(child, value[key], [...path, fieldElement(key)], set, containers);
    }
    return;
  }
  if (structure.type === "list" && Array.isArray(value)) {
    if (containers) set.insert(path);
    for (const { element, item } of indexItems(structure, value)) {
      const itemPath = [...path, element];
      set.insert(itemPath);
      collect(structure.items, item, itemPath, set, containers);
    }
    return;
  }
  if (path.length > 0) set.insert(path);
}

export interface Comparison {
  /** Present in the new value only (containers included). */
  added: FieldSet;
  /** Present in both, with another value. */
  modified: FieldSet;
  /** Present in the old value only (containers included). */
  removed: FieldSet;
}

/** What changed between two values of the same structure. */
export function compare(structure: Structure, before: unknown, after: unknown): Comparison {
  // A create: everything is added, and the set of its paths is the answer (not rebuilt path by path).
  if ((before === undefined || before === null) && after !== undefined && after !== null)
    return { added: allPathsOf(structure, after, []), modified: new FieldSet(), removed: new FieldSet() };
  const result = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(structure, before, after, [], result);
  return result;
}

function compareAt(structure: Structure, before: unknown, after: unknown, path: Path, result: Comparison) {
  const absentBefore = before === undefined || before === null;
  const absentAfter = after === undefined || after === null;
  if (absentBefore && absentAfter) return;
  if (absentBefore) {
    for (const added of allPathsOf(structure, after, path).paths()) result.added.insert(added);
    return;
  }
  if (absentAfter) {
    for (const removed of allPathsOf(structure, before, path).paths()) result.removed.insert(removed);
    return;
  }
  if ((structure.type === "struct" || structure.type === "map") && isRecord(before) && isRecord(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    const union = { ...before, ...after };
    for (const [key, child] of children(structure, union)) {
      if (keys.has(key)) compareAt(child, before[key], after[key], [...path, fieldElement(key)], result);
    }
    return;
  }
  if (structure.type === "list" && Array.isArray(before) && Array.isArray(after)) {
    const old = new Map(indexItems(structure, before).map(({ element, item }) => [element, item]));
    const now = new Map(indexItems(structure, after).map(({ element, item }) => [element, item]));
    for (const element of new Set([...old.keys(), ...now.keys()])) {
      compareAt(structure.items, old.get(element), now.get(element), [...path, element], result);
    }
    return;
  }
  if (!isDeepStrictEqual(before, after) && path.length > 0) result.modified.insert(path);
}

/**
 * The applied configuration merged onto the live value: structs and maps field by field, map-lists item
 * by item (live items keep their place, the configuration's order wins among the items it names), the
 * rest replaced by what the configuration says.
 */
export function merge(structure: Structure, live: unknown, config: unknown): unknown {
  if (config === undefined || config === null) return live;
  if (live === undefined || live === null) return config;
  if ((structure.type === "struct" || structure.type === "map") && isRecord(live) && isRecord(config)) {
    const merged: Record<string, unknown> = { ...live };
    for (const key of Object.keys(config)) {
      const child = structure.type === "struct" ? structure.fields[key] : structure.values;
      merged[key] =
        child === undefined || !Object.hasOwn(live, key) ? config[key] : merge(child, live[key], config[key]);
    }
    return merged;
  }
  if (structure.type === "list" && Array.isArray(live) && Array.isArray(config)) {
    return mergeList(structure, live, config);
  }
  return config;
}

/** structured-merge-diff's order for map-lists, on the items whose keys can be read. */
function mergeList(
  structure: ListStructure,
  live: readonly unknown[],
  config: readonly unknown[],
): unknown[] {
  const lhs = indexItems(structure, live);
  const rhs = indexItems(structure, config);
  const inLhs = new Map(lhs.map(({ element, item }) => [element, item]));
  const inRhs = new Map(rhs.map(({ element, item }) => [element, item]));
  const shared = rhs.map(({ element }) => element).filter((element) => inLhs.has(element));
  let nextShared = shared.shift();
  const merged = new Set<PathElement>();
  const out: unknown[] = [];
  let l = 0;
  let r = 0;
  while (l < lhs.length || r < rhs.length) {
    const left = lhs[l];
    const right = rhs[r];
    if (left !== undefined && right !== undefined) {
      if (left.element === right.element) {
        merged.add(left.element);
        out.push(merge(structure.items, left.item, right.item));
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (inRhs.has(left.element) && nextShared !== undefined && nextShared !== left.element) {
        l++;
        continue;
      }
    }
    if (left !== undefined) {
      if (!inRhs.has(left.element)) {
        out.push(left.item);
        l++;
        continue;
      }
      if (merged.has(left.element)) {
        l++;
        continue;
      }
    }
    if (right !== undefined) {
      merged.add(right.element);
      out.push(merge(structure.items, inLhs.get(right.element), right.item));
      r++;
      if (nextShared === right.element) nextShared = shared.shift();
    } else if (left !== undefined) {
      l++;
    }
  }
  return out;
}

/** A copy of the value without the nodes whose path is in the set (a removed container takes its children). */
export function removePaths(structure: Structure, value: unknown, set: FieldSet, path: Path = []): unknown {
  if ((structure.type === "struct" || structure.type === "map") && isRecord(value)) {
    const kept: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const child = structure.type === "struct" ? structure.fields[key] : structure.values;
      const childPath = [...path, fieldElement(key)];
      if (child === undefined) kept[key] = value[key];
      else if (!set.has(childPath)) kept[key] = removePaths(child, value[key], set, childPath);
    }
    return kept;
  }
  if (structure.type === "list" && Array.isArray(value)) {
    return value.flatMap((item) => {
      if (!isRecord(item) || !structure.keys.every((key) => isScalar(item[key]))) return [item];
      const itemPath = [...path, keyElement(item, structure.keys)];
      return set.has(itemPath) ? [] : [removePaths(structure.items, item, set, itemPath)];
    });
  }
  return value;
}
