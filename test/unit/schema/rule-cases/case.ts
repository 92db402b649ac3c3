import { type KindName, RULES, type Severity } from "../../../../sdk/schema";
import { cloudProxy, gitService, ociService, revision, withValue } from "../examples";

/** One case of a rule: a spec, and the violations of that rule validateSpec (or validateUpdate) finds. */
export interface RuleCase {
  rule: string;
  name: string;
  kind: KindName;
  spec: unknown;
  /** The rule's violations, as [path, severity]; empty for a valid case. */
  expected: readonly (readonly [string, Severity])[];
  /** For rules about updates: the stored spec that `spec` replaces. */
  previous?: unknown;
}

type Path = readonly (string | number)[];

// The valid examples with one value changed.
export const proxy = (path: Path, value: unknown) => withValue(cloudProxy, path, value);
export const service = (path: Path, value: unknown) => withValue(ociService, path, value);
export const git = (path: Path, value: unknown) => withValue(gitService, path, value);
export const rev = (path: Path, value: unknown) => withValue(revision, path, value);
export const config = ["template", "spec"] as const;
export const oci = ["source", "oci"] as const;
export const build = ["source", "git", "build"] as const;

/** A case the rule finds at `paths`, with the rule's severity. */
export function invalid(
  rule: string,
  name: string,
  kind: KindName,
  spec: unknown,
  ...paths: string[]
): RuleCase {
  const severity = RULES.find((info) => info.id === rule)?.severity ?? "error";
  return { rule, name, kind, spec, expected: paths.map((path) => [path, severity] as const) };
}

export function valid(rule: string, name: string, kind: KindName, spec: unknown): RuleCase {
  return { rule, name, kind, spec, expected: [] };
}

/** The case as an update of `previous`. */
export function update(item: RuleCase, previous: unknown): RuleCase {
  return { ...item, previous };
}
