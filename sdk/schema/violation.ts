import type { KindName } from "./kinds";

export type Severity = "error" | "warning";

export type CauseReason =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueForbidden"
  | "FieldValueNotSupported"
  | "FieldValueDuplicate";

/** One finding. `path` is the JSON path from the object root, e.g. "spec.template.spec.env[1].name". */
export interface Violation {
  rule: string;
  path: string;
  severity: Severity;
  reason: CauseReason;
  message: string;
}

/**
 * A rule of the catalog. `path` is a pattern: `[*]` is any index, `**` any prefix inside the spec,
 * and alternatives are separated by " | ".
 */
export interface RuleInfo {
  id: string;
  kinds: readonly KindName[];
  path: string;
  severity: Severity;
  description: string;
  /**
   * A rule about changing a stored object (`validateUpdate`): the server refuses the update and the provider
   * replaces instead; the policy pack, which sees only the new inputs, cannot judge it.
   */
  change?: true;
}

export type PathSegment = string | number;

/** Renders ["spec", "env", 1, "name"] as "spec.env[1].name". */
export function formatPath(segments: readonly PathSegment[]): string {
  let text = "";
  for (const segment of segments) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? segment : `.${segment}`;
  }
  return text;
}

/** Reads "spec.env[1].name" back as ["spec", "env", 1, "name"]: the inverse of formatPath. */
export function parsePath(path: string): PathSegment[] {
  return [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map(([, name, index]) => name ?? Number(index));
}

/** Builds a violation whose message starts with the path, so it reads on its own in any log or UI. */
export function violation(
  rule: RuleInfo,
  path: readonly PathSegment[],
  reason: CauseReason,
  fix: string,
): Violation {
  const where = formatPath(path);
  return { rule: rule.id, path: where, severity: rule.severity, reason, message: `${where}: ${fix}` };
}
