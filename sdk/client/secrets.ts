import { isPlaceholder, type KindName, secretPaths } from "../schema";
import { isRecord } from "../shared/records";
import type { JsonPatchOperation } from "./types";

/**
 * The secret values a request body carries (per the schema), so an error message can never repeat them
 * even if the server echoes a value back. `spec` may be partial, as in a merge patch.
 */
export function secretValuesOf(kind: KindName, spec: unknown): string[] {
  return secretPaths(kind, spec)
    .flatMap((path) => stringLeaves(valueAt(spec, path)))
    .filter((value) => !isPlaceholder(value));
}

/** The secret values a JSON patch writes, found by laying out each operation's value in a sparse spec. */
export function secretValuesOfJsonPatch(kind: KindName, operations: readonly JsonPatchOperation[]): string[] {
  return operations.flatMap((operation) => secretValuesOf(kind, specWrittenBy(operation)));
}

/** `{ op: "add", path: "/spec/a/0/b", value: 1 }` -> `{ a: [{ b: 1 }] }`: the spec the value lands in. */
export function specWrittenBy(operation: JsonPatchOperation): unknown {
  if (!("value" in operation)) return undefined;
  const root: Record<string, unknown> = {};
  placeAt(root, pointerSegments(operation.path), operation.value);
  return root.spec;
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown> | undefined)?.[key],
    value,
  );
}

function stringLeaves(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value) || isRecord(value)) return Object.values(value).flatMap(stringLeaves);
  return [];
}

function pointerSegments(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** Sets `value` at `segments`, creating arrays for numeric (or `-`) segments and objects otherwise. */
function placeAt(root: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = root;
  for (const [index, segment] of segments.entries()) {
    if (segment === "__proto__") return;
    const key = Array.isArray(node) ? (segment === "-" ? node.length : Number(segment)) : segment;
    const slot = node as Record<string | number, unknown>;
    if (index === segments.length - 1) {
      slot[key] = value;
      return;
    }
    if (typeof slot[key] !== "object" || slot[key] === null) {
      slot[key] = /^(\d+|-)$/.test(segments[index + 1] ?? "") ? [] : {};
    }
    node = slot[key] as Record<string, unknown> | unknown[];
  }
}
