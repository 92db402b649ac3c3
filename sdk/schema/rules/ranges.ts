import { FIELD_DEFAULTS } from "../field-defaults";
import type { ValueRule } from "./formats";

/**
 * What is wrong with a number that must be an integer, or undefined when it is one. Infinity is not
 * "a fraction" (nor is NaN): each message names the actual problem.
 */
export function integerProblem(value: number): string | undefined {
  if (Number.isNaN(value)) return "is not a number";
  if (!Number.isFinite(value)) return "is not a finite number";
  if (!Number.isInteger(value)) return "is not an integer";
  return undefined;
}

const PORT_FIX = "use an integer from 1 to 65535";
const REVISION_COUNT_FIX = () =>
  `set a count of revisions to keep, 0 or more (default ${FIELD_DEFAULTS.revisionHistoryLimit})`;

export const backendPortRange: ValueRule<number> = {
  info: {
    id: "backend-port-range",
    kinds: ["Service", "ServiceRevision"],
    path: "**.backend.port",
    severity: "error",
    description: "backend.port is a TCP or UDP port number: use an integer from 1 to 65535.",
  },
  accepts: (value) => value >= 1 && value <= 65535,
  fix: (value) => {
    const problem = integerProblem(value);
    return problem === undefined
      ? `${value} is not a port number; use a port from 1 to 65535`
      : `${value} ${problem}; ${PORT_FIX}`;
  },
};

export const revisionHistoryRange: ValueRule<number> = {
  info: {
    id: "revision-history-range",
    kinds: ["Service"],
    path: "spec.revisionHistoryLimit",
    severity: "error",
    get description() {
      return `spec.revisionHistoryLimit counts retained revisions, so it cannot be negative: ${REVISION_COUNT_FIX()}.`;
    },
  },
  accepts: (value) => value >= 0,
  fix: (value) => `${value} ${integerProblem(value) ?? "is negative"}; ${REVISION_COUNT_FIX()}`,
};

/** The integer fields and what each accepts, as the second half of a message ("...; use ..."). */
const INTEGER_FIELDS: readonly { rule: ValueRule<number>; fix: () => string }[] = [
  { rule: backendPortRange, fix: () => PORT_FIX },
  { rule: revisionHistoryRange, fix: REVISION_COUNT_FIX },
];

/**
 * How to fix a number that cannot be used at `path` (a JSON path from the object root, as in
 * violations), when `path` is one of the integer fields; undefined otherwise. Lets code that finds a
 * bad number before the schema sees it (the server's JSON decoding) say what the field accepts.
 */
export function integerFieldFix(path: string): string | undefined {
  return INTEGER_FIELDS.find(({ rule }) => matchesRulePath(rule.info.path, path))?.fix();
}

/** `**.` matches any prefix (including none after a dot); alternatives are not used by these rules. */
function matchesRulePath(pattern: string, path: string): boolean {
  return pattern.startsWith("**.")
    ? path === pattern.slice(3) || path.endsWith(pattern.slice(2))
    : path === pattern;
}
