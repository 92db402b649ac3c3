import { describe, expect, test } from "vitest";
import { RULES, validateSpec, validateUpdate } from "../../../sdk/schema";
import type { RuleCase } from "./rule-cases/case";
import { CROSS_FIELD_CASES } from "./rule-cases/cross-field";
import { FIELD_CASES } from "./rule-cases/fields";
import { FORMAT_CASES } from "./rule-cases/formats";
import { SECTION_7_CASES } from "./rule-cases/section-7";
import { UPDATE_CASES } from "./rule-cases/updates";
import { WARNING_CASES } from "./rule-cases/warnings";

const CASES: readonly RuleCase[] = [
  ...SECTION_7_CASES,
  ...FIELD_CASES,
  ...FORMAT_CASES,
  ...CROSS_FIELD_CASES,
  ...WARNING_CASES,
  ...UPDATE_CASES,
];

describe.each(RULES.map((rule) => [rule.id, rule] as const))("rule %s", (id, rule) => {
  const cases = CASES.filter((item) => item.rule === id);

  test("has at least one invalid and one valid case", () => {
    expect(cases.some((item) => item.expected.length > 0)).toBe(true);
    expect(cases.some((item) => item.expected.length === 0)).toBe(true);
  });

  test.each(cases.map((item) => [item.name, item] as const))("%s", (_name, item) => {
    const all =
      item.previous === undefined
        ? validateSpec(item.kind, item.spec)
        : validateUpdate(item.kind, item.previous, item.spec);
    const found = all.filter((violation) => violation.rule === id);
    expect(found.map((violation) => [violation.path, violation.severity])).toEqual(item.expected);
    for (const violation of found) {
      expect(rule.kinds).toContain(item.kind);
      expect(violation.message.startsWith(`${violation.path}: `)).toBe(true);
    }
  });
});

test("every case names a rule of the catalog", () => {
  const ids = new Set(RULES.map((rule) => rule.id));
  expect(CASES.filter((item) => !ids.has(item.rule)).map((item) => item.rule)).toEqual([]);
});
