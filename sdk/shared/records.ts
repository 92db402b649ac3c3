/** An object made by a literal or JSON.parse (its prototype Object.prototype or null): not a Date, Map, class. */
export function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A JSON object: not null, not an array. The one definition; `sdk/schema`, `sdk/errors`, the server, the admission code and the policy pack use it. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type JsonPath = readonly (string | number)[];

export function valueAt(root: unknown, path: JsonPath): unknown {
  let node = root;
  for (const segment of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

/** Sets a value where the path already leads (it never creates containers). */
export function replaceAt(root: unknown, path: JsonPath, value: unknown): void {
  const parent = valueAt(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (typeof parent === "object" && parent !== null && last !== undefined && Object.hasOwn(parent, last)) {
    (parent as Record<string | number, unknown>)[last] = value;
  }
}

/** A copy without the keys whose value is undefined (so stored JSON and equality checks agree). */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
