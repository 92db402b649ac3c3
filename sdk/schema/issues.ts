import type { z } from "zod";
import type { KindName } from "./kinds";
import { RULE_INFOS_BY_ID } from "./rules/catalog";
import { quote } from "./rules/helpers";
import { enumValue, fieldType, int32Range, requiredField } from "./rules/structural";
import { isRecord, isUnknown } from "./sentinel";
import { SPECS, specSchema } from "./specs";
import { formatPath, type PathSegment, type RuleInfo, type Violation, violation } from "./violation";

/** Turns zod's issues for a spec into violations of the catalog's rules. */

type Issue = z.core.$ZodIssue;

/** The value at `path`, and whether any step on the way (or the value itself) is the unknown sentinel. */
function lookup(root: unknown, path: readonly PropertyKey[]): { value: unknown; unknown: boolean } {
  let value = root;
  for (const segment of path) {
    if (isUnknown(value)) return { value, unknown: true };
    if (!(isRecord(value) || Array.isArray(value))) return { value: undefined, unknown: false };
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return { value, unknown: isUnknown(value) };
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  int: "an integer",
  int32: "an integer",
  number: "a number",
  string: "a string",
  boolean: "a boolean (true or false)",
  object: "an object",
  array: "an array",
  record: "an object (a map)",
};

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return "a number that is not finite";
  if (typeof value === "number" && !Number.isInteger(value)) return "a fraction";
  return TYPE_NAMES[typeof value] ?? typeof value;
}

/**
 * The rule a missing field at `path` breaks, where it is reported and what to set: a field section 7 names
 * reports its own rule, and so does an object it lists in `reportedAt` (a Service without `runtime` is
 * reported at `runtime.compatibilityDate`); any other field reports `required-field` where it is missing.
 */
function requiredRule(
  kind: KindName,
  path: readonly PathSegment[],
): { info: RuleInfo; path: readonly PathSegment[]; hint?: string } {
  const at = formatPath(path);
  for (const { info, fields, reportedAt, hints } of SPECS[kind].required) {
    const inside = reportedAt?.[at];
    if (inside !== undefined) return { info, path: inside.split("."), hint: hints?.[inside] };
    if (fields.includes(at)) return { info, path, hint: hints?.[at] };
  }
  return { info: requiredField, path };
}

function toViolation(kind: KindName, issue: Issue, value: unknown): Violation | undefined {
  const path: PathSegment[] = [
    "spec",
    ...issue.path.map((segment) => (typeof segment === "number" ? segment : String(segment))),
  ];
  const expected = "expected" in issue ? TYPE_NAMES[String(issue.expected)] : undefined;
  if (value === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value")) {
    const required = requiredRule(kind, path);
    const what =
      required.hint ??
      (issue.code === "invalid_value" ? `one of ${issue.values.map(quote).join(", ")}` : expected);
    return violation(
      required.info,
      required.path,
      "FieldValueRequired",
      `is required; set it to ${what ?? "a value"}`,
    );
  }
  switch (issue.code) {
    case "unrecognized_keys":
      return undefined; // reported per key, with a suggestion, by unknownFieldViolations
    case "invalid_type":
      return violation(
        fieldType,
        path,
        "FieldValueInvalid",
        `must be ${expected ?? issue.expected}, not ${describeType(value)}`,
      );
    case "invalid_value":
      return violation(
        enumValue,
        path,
        "FieldValueNotSupported",
        `${quote(value)} is not supported; use one of ${issue.values.map(quote).join(", ")}`,
      );
    case "too_big":
    case "too_small":
      return violation(
        int32Range,
        path,
        "FieldValueInvalid",
        `${quote(value)} is out of range; use an integer from -2147483648 to 2147483647`,
      );
    case "custom": {
      const rule = RULE_INFOS_BY_ID.get(String(issue.params?.rule));
      return violation(rule ?? fieldType, path, "FieldValueInvalid", issue.message);
    }
    default:
      return violation(fieldType, path, "FieldValueInvalid", issue.message);
  }
}

/** Structural violations of `spec`; issues at or under an unknown value are not violations. */
export function structuralViolations(kind: KindName, spec: unknown): Violation[] {
  const result = specSchema(kind).safeParse(spec);
  if (result.success) return [];
  const violations: Violation[] = [];
  for (const issue of result.error.issues) {
    const { value, unknown } = lookup(spec, issue.path);
    if (unknown) continue;
    const found = toViolation(kind, issue, value);
    if (found !== undefined) violations.push(found);
  }
  return violations;
}
