import { type KindName, type Violation, validateSpec } from "../sdk/schema";

/**
 * validateSpec once per resource, not once per rule policy: every rule's policy reads its own violations from
 * one validation of the spec. The policy server hands each policy a fresh copy of the resource's inputs, so
 * copies are recognised by content: `contentKey` spells out everything validateSpec can tell apart. The
 * server judges resources one after another, each by every policy in turn, so a handful of recent specs is
 * all the memory needs; a few more cover the engine asking about several resources at once.
 */
const RECENT = 16;
const recent = new Map<string, readonly Violation[]>();

export function specViolations(kind: KindName, spec: unknown): readonly Violation[] {
  const content = contentKey(spec);
  if (content === undefined) return validateSpec(kind, spec);
  const key = `${kind} ${content}`;
  const known = recent.get(key);
  if (known !== undefined) return known;
  const violations = validateSpec(kind, spec);
  if (recent.size === RECENT) recent.delete(recent.keys().next().value as string);
  recent.set(key, violations);
  return violations;
}

/**
 * A string that equals another's exactly when the two values are the same JSON-like data: the same types,
 * numbers by Object.is, plain objects' own keys in the same order (undefined values and array holes kept,
 * unlike JSON.stringify), the same prototypes. Undefined for anything else (a class instance, a bigint), which
 * is then validated without the memory.
 */
function contentKey(value: unknown): string | undefined {
  switch (typeof value) {
    case "undefined":
      return "u";
    case "boolean":
      return value ? "t" : "f";
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "string":
      return JSON.stringify(value);
    case "object":
      if (value === null) return "n";
      if (Array.isArray(value))
        return Object.getPrototypeOf(value) === Array.prototype ? arrayKey(value) : undefined;
      return objectKey(value);
    default:
      return undefined;
  }
}

function arrayKey(items: readonly unknown[]): string | undefined {
  const keys: string[] = [];
  for (let index = 0; index < items.length; index++) {
    const key = index in items ? contentKey(items[index]) : "h";
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return `[${keys.join(",")}]`;
}

function objectKey(object: object): string | undefined {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const entries: string[] = [];
  for (const [name, field] of Object.entries(object)) {
    const key = contentKey(field);
    if (key === undefined) return undefined;
    entries.push(`${JSON.stringify(name)}:${key}`);
  }
  return `${prototype === null ? "{0" : "{"}${entries.join(",")}}`;
}
