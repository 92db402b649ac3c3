import { type KindName, type Violation, validateSpec } from "../sdk/schema";
import { isPlainObject } from "../sdk/shared/records";

/**
 * validateSpec once per resource, not once per rule policy: every rule's policy reads its own violations from
 * one validation of the spec. The policy server hands each policy a fresh copy of the resource's inputs, so
 * copies are recognised by content (`sameData`), compared with a private copy of each spec validated. The
 * server judges resources one after another, each by every policy in turn, so a handful of recent specs is
 * all the memory needs; a few more cover the engine asking about several resources at once.
 */
const RECENT = 16;
const recent: { kind: KindName; spec: unknown; violations: readonly Violation[] }[] = [];

export function specViolations(kind: KindName, spec: unknown): readonly Violation[] {
  const known = recent.find((entry) => entry.kind === kind && sameData(entry.spec, spec));
  if (known !== undefined) return known.violations;
  const violations = validateSpec(kind, spec);
  if (isData(spec)) {
    recent.unshift({ kind, spec: structuredClone(spec), violations });
    recent.length = Math.min(recent.length, RECENT);
  }
  return violations;
}

/**
 * JSON-like data: undefined, null, booleans, numbers, strings, and arrays and plain objects of them. Only such
 * specs are remembered; validateSpec sees anything else (a class instance, a bigint) afresh each time.
 */
function isData(value: unknown): boolean {
  switch (typeof value) {
    case "undefined":
    case "boolean":
    case "number":
    case "string":
      return true;
    case "object":
      if (value === null) return true;
      if (Array.isArray(value))
        return Object.getPrototypeOf(value) === Array.prototype && value.every(isData);
      return isPlainObject(value) && Object.values(value).every(isData);
    default:
      return false;
  }
}

/**
 * The same data to validateSpec, `known` being data (isData): the same types, numbers by Object.is, arrays
 * with holes in the same places, plain objects with the same own keys in the same order (undefined values
 * kept, unlike JSON.stringify) and the same prototype.
 */
function sameData(known: unknown, value: unknown): boolean {
  if (typeof known !== "object" || known === null) return Object.is(known, value);
  if (typeof value !== "object" || value === null) return false;
  if (Object.getPrototypeOf(known) !== Object.getPrototypeOf(value)) return false;
  if (Array.isArray(known)) {
    const items = value as unknown[];
    return (
      known.length === items.length &&
      known.every((item, index) => index in items && sameData(item, items[index])) &&
      items.every((_, index) => index in known)
    );
  }
  const knownKeys = Object.keys(known);
  const keys = Object.keys(value);
  return (
    knownKeys.length === keys.length &&
    knownKeys.every(
      (key, index) =>
        keys[index] === key &&
        sameData((known as Record<string, unknown>)[key], (value as Record<string, unknown>)[key]),
    )
  );
}
