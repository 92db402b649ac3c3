import type { KindName } from "./kinds";
import { validateSpec, validateUpdate } from "./validate";
import type { CauseReason } from "./violation";

/**
 * The schema's rules that a Kubernetes API server can check itself, said in CEL (a CRD's
 * `x-kubernetes-validations`). Each rule carries an example the schema's own check refuses: its violation
 * gives the message (so the words are the schema's, not a copy) and must sit where the CEL rule reports,
 * so both servers name the same field. Change rules use `oldSelf` (transition rules).
 */

interface CelRule {
  /** The schema rule's id. */
  id: string;
  kind: KindName;
  /** The object, from the object root, whose schema carries the rule: `self` in the expression. */
  at: readonly string[];
  /** True when the object is valid; a change rule compares `self` with `oldSelf`. */
  rule: string;
  /** Where a violation is reported, relative to `at` (".filter"); `at` itself when absent. */
  fieldPath?: string;
  reason: CauseReason;
  /** A spec the schema refuses, or an update it refuses (`previous` to `spec`). */
  example: { previous?: unknown; spec: unknown };
}

/** A Service's mode is filter when filter is set alone; backend otherwise (the default), unless both are set. */
const toFilter = "has(self.filter) && !has(self.backend) && !has(oldSelf.filter)";
const toBackend = "!has(self.filter) && has(oldSelf.filter) && !has(oldSelf.backend)";

const CEL_RULES: readonly CelRule[] = [
  {
    id: "service-mode-immutable",
    kind: "Service",
    at: ["spec", "template", "spec"],
    rule: `!(${toFilter})`,
    fieldPath: ".filter",
    reason: "FieldValueForbidden",
    example: { previous: { template: { spec: {} } }, spec: { template: { spec: { filter: {} } } } },
  },
  {
    id: "service-mode-immutable",
    kind: "Service",
    at: ["spec", "template", "spec"],
    rule: `!(${toBackend})`,
    fieldPath: ".backend",
    reason: "FieldValueForbidden",
    example: { previous: { template: { spec: { filter: {} } } }, spec: { template: { spec: {} } } },
  },
  {
    id: "revision-spec-immutable",
    kind: "ServiceRevision",
    at: ["spec"],
    rule: "self == oldSelf",
    reason: "FieldValueForbidden",
    example: { previous: { bundle: { repo: "a.example/app" } }, spec: { bundle: { repo: "b.example/app" } } },
  },
];

/** One entry of `x-kubernetes-validations`. */
export interface CelValidation {
  rule: string;
  message: string;
  fieldPath?: string;
  reason: CauseReason;
}

/** The CEL validations of a kind, keyed by the dotted path (from the object root) of the object carrying them. */
export function celValidations(kind: KindName): Map<string, CelValidation[]> {
  const found = new Map<string, CelValidation[]>();
  for (const cel of CEL_RULES.filter((entry) => entry.kind === kind)) {
    const at = cel.at.join(".");
    found.set(at, [...(found.get(at) ?? []), validation(cel, at)]);
  }
  return found;
}

function validation({ id, kind, rule, fieldPath, reason, example }: CelRule, at: string): CelValidation {
  const violations =
    example.previous === undefined
      ? validateSpec(kind, example.spec)
      : validateUpdate(kind, example.previous, example.spec);
  const path = `${at}${fieldPath ?? ""}`;
  const found = violations.find((violation) => violation.rule === id);
  if (found?.path !== path) {
    throw new TypeError(`the CEL form of ${id} reports at ${path}; its example breaks it at ${found?.path}`);
  }
  const message = found.message.slice(`${found.path}: `.length);
  return { rule, message, ...(fieldPath !== undefined && { fieldPath }), reason };
}
