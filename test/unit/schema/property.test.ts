import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  applyDefaults,
  findUnknownFields,
  isPlaceholder,
  KIND_NAMES,
  type KindName,
  RULES,
  redactSecrets,
  secretPaths,
  stripUnknownFields,
  UNKNOWN,
  type Violation,
  validateSpec,
  validateUpdate,
} from "../../../sdk/schema";
import { EXAMPLES, pathsOf, withValue } from "./examples";

const REASONS = [
  "FieldValueRequired",
  "FieldValueInvalid",
  "FieldValueForbidden",
  "FieldValueNotSupported",
  "FieldValueDuplicate",
];
const RULES_BY_ID = new Map(RULES.map((rule) => [rule.id, rule]));

function expectWellFormed(kind: KindName, violations: Violation[]): void {
  expect(Array.isArray(violations)).toBe(true);
  for (const violation of violations) {
    const rule = RULES_BY_ID.get(violation.rule);
    expect(rule, violation.rule).toBeDefined();
    expect(violation.severity).toBe(rule?.severity);
    expect(rule?.kinds).toContain(kind);
    expect(REASONS).toContain(violation.reason);
    expect(violation.path).toMatch(/^spec([.[]|$)/);
    expect(violation.message.startsWith(`${violation.path}: `)).toBe(true);
  }
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>(
    (current, segment) => (current as Record<string | number, unknown>)?.[segment],
    value,
  );
}

const kind = fc.constantFrom(...KIND_NAMES);

/** A complete example with some of its values (or whole objects) replaced, removed or joined by stray keys. */
const specShaped = fc
  .record({
    example: fc.constantFrom(...EXAMPLES),
    edits: fc.array(
      fc.record({
        at: fc.nat(),
        value: fc.oneof(fc.jsonValue(), fc.constant(UNKNOWN), fc.constant(undefined)),
        stray: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
      }),
      { maxLength: 6 },
    ),
  })
  .map(({ example, edits }) => {
    let spec: unknown = example.spec;
    for (const { at, value, stray } of edits) {
      const paths =
        stray === undefined
          ? pathsOf(spec)
          : [[], ...pathsOf(spec)].filter((path) => isObject(valueAt(spec, path)));
      const path = paths[at % paths.length];
      if (path === undefined) break;
      spec = withValue(spec, stray === undefined ? path : [...path, stray], value);
    }
    return { kind: example.kind, spec };
  });

const inputs = fc.oneof(
  fc.record({ kind, spec: fc.jsonValue() }),
  fc.record({ kind, spec: fc.anything({ withNullPrototype: true, withObjectString: true }) }),
  specShaped,
);

describe("on arbitrary input", () => {
  test("validateSpec never throws and returns well-formed violations", () => {
    fc.assert(
      fc.property(inputs, ({ kind, spec }) => {
        expectWellFormed(kind, validateSpec(kind, spec));
        expectWellFormed(kind, validateSpec(kind, spec, { unknownFields: "ignore" }));
      }),
      { numRuns: 400 },
    );
  });

  test("validateUpdate never throws and returns well-formed violations", () => {
    fc.assert(
      fc.property(inputs, inputs, (previous, { kind, spec }) => {
        expectWellFormed(kind, validateUpdate(kind, previous.spec, spec));
      }),
      { numRuns: 400 },
    );
  });

  test("applyDefaults never throws and is idempotent", () => {
    fc.assert(
      fc.property(inputs, ({ kind, spec }) => {
        const once = applyDefaults(kind, spec);
        expect(applyDefaults(kind, once)).toEqual(once);
      }),
      { numRuns: 400 },
    );
  });

  test("redactSecrets never throws and leaves only placeholders (or unknowns) at secret paths", () => {
    fc.assert(
      fc.property(inputs, ({ kind, spec }) => {
        const redacted = redactSecrets(kind, spec);
        for (const path of secretPaths(kind, redacted)) {
          const value = valueAt(redacted, path);
          expect(isPlaceholder(value) || value === UNKNOWN).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  test("stripUnknownFields leaves nothing for findUnknownFields", () => {
    fc.assert(
      fc.property(inputs, ({ kind, spec }) => {
        expect(findUnknownFields(kind, stripUnknownFields(kind, spec))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
