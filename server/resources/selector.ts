import { badRequest } from "../../sdk/errors/server-errors";
import { keyProblem, labelValueProblem } from "../../sdk/schema";

/** One requirement of a Kubernetes label selector. */
export type Requirement =
  | { key: string; operator: "in" | "notin"; values: string[] }
  | { key: string; operator: "exists" | "doesnotexist" };

export type LabelSelector = readonly Requirement[];

const SET = /^(\S+)\s+(in|notin)\s*\((.*)\)$/;
const EQUALITY = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/;
const NOT_EXISTS = /^!\s*(\S+)$/;

/**
 * Parses the `labelSelector` query parameter: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
 * `k` (exists) and `!k` (does not exist), separated by commas.
 */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  if (text === undefined || text.trim() === "") return [];
  return splitTopLevel(text).map((part) => parseRequirement(part.trim()));
}

export function matchesSelector(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>> = {},
): boolean {
  return selector.every((requirement) => matchesRequirement(requirement, labels));
}

function matchesRequirement(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  switch (requirement.operator) {
    case "exists":
      return present;
    case "doesnotexist":
      return !present;
    case "in":
      return present && requirement.values.includes(labels[requirement.key] as string);
    case "notin":
      // As in Kubernetes, an object without the label matches `!=` and `notin`.
      return !present || !requirement.values.includes(labels[requirement.key] as string);
  }
}

/** Commas separate requirements except inside the parentheses of a set. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseRequirement(part: string): Requirement {
  const set = SET.exec(part);
  if (set) {
    const [, key = "", operator, list = ""] = set;
    const values = list.split(",").map((value) => value.trim());
    if (list.trim() === "") fail(part, `the set of values for "${operator}" must not be empty`);
    return {
      key: checkedKey(part, key),
      operator: operator as "in" | "notin",
      values: values.map((v) => checkedValue(part, v)),
    };
  }
  const notExists = NOT_EXISTS.exec(part);
  if (notExists) return { key: checkedKey(part, notExists[1] ?? ""), operator: "doesnotexist" };
  const equality = EQUALITY.exec(part);
  if (equality) {
    const [, key = "", operator, value = ""] = equality;
    return {
      key: checkedKey(part, key),
      operator: operator === "!=" ? "notin" : "in",
      values: [checkedValue(part, value.trim())],
    };
  }
  return { key: checkedKey(part, part), operator: "exists" };
}

function checkedKey(part: string, key: string): string {
  const problem = keyProblem(key);
  if (problem) fail(part, problem);
  return key;
}

function checkedValue(part: string, value: string): string {
  const problem = labelValueProblem(value);
  if (problem) fail(part, problem);
  return value;
}

function fail(part: string, problem: string): never {
  throw badRequest(
    `labelSelector: unable to parse requirement "${part}": ${problem}; use forms such as "app=web", "tier in (a,b)", "!legacy"`,
  );
}
