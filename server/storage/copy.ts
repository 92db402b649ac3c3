/**
 * A deep copy of a stored object. Stored objects are JSON values (they come from JSON bodies and are
 * journaled as JSON), and copying those field by field is an order of magnitude faster than
 * `structuredClone`, which the store pays on every read and for every listener of every event. Anything
 * that is not a plain object, an array or a primitive is left to `structuredClone`.
 */
export function copyJson<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyValue);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = copyValue((value as Record<string, unknown>)[key]);
    // A "__proto__" key (JSON.parse makes it an own property) must stay data, never set the prototype.
    if (key === "__proto__")
      Object.defineProperty(copy, key, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = field;
  }
  return copy;
}
