import mergePatch from "json-merge-patch";
import { BINDING_TYPES, PORT_PROTOCOLS } from "./enums";
import type { KindName } from "./kinds";
import { validateSpec, validateUpdate } from "./validate";
import { type CauseReason, formatPath, type PathSegment } from "./violation";

/**
 * The schema's rules that a Kubernetes API server can check itself, said in CEL (a CRD's
 * `x-kubernetes-validations`). Each rule carries an example the schema's own check refuses: its violation
 * gives the message (so the words are the schema's, not a copy) and must sit where the CEL rule reports,
 * so both servers name the same field; the tests send the same example to both servers. Change rules use
 * `oldSelf` (transition rules).
 */

export interface CelRule {
  /** The schema rule's id. */
  id: string;
  kind: KindName;
  /**
   * The object, from the object root, whose schema carries the rule: `self` in the expression. A number
   * stands for every item of a list (the example puts the object at that index).
   */
  at: readonly PathSegment[];
  /** True when the object is valid; a change rule compares `self` with `oldSelf`. */
  rule: string;
  /** Where a violation is reported, relative to `at` (".filter"); `at` itself when absent. */
  fieldPath?: string;
  /**
   * A field of `at` that the schema requires and whose absence this rule reports instead, at `fieldPath`: the
   * CRD leaves it out of the object's structural `required`, since Kubernetes reports a missing required
   * field at that field and then skips every CEL rule.
   */
  requires?: string;
  reason: CauseReason;
  /**
   * For a message that names the value: the CEL expression of the value, and its text in the example's
   * message, which the expression replaces (a `messageExpression`).
   */
  value?: { expression: string; text: string };
  /**
   * JSON merge patches of the spec (null removes a field) that make a valid spec break the rule: `self`
   * alone, or `previous` then `self` for a change rule. Kubernetes checks CEL rules only on an object
   * that is otherwise valid, so the patches must keep the rest of it valid.
   */
  example: { previous?: unknown; self: unknown };
}

/** A Service's mode is filter when filter is set alone; backend otherwise (the default), unless both are set. */
const toFilter = "has(self.filter) && !has(self.backend) && !has(oldSelf.filter)";
const toBackend = "!has(self.filter) && has(oldSelf.filter) && !has(oldSelf.backend)";

const REPO = { repo: "registry.example.dev/team/app" };
const GIT = { url: "https://git.example.dev/team/app", triggers: {}, build: { output: REPO } };
const BOTH_CREDENTIALS = {
  credentials: { username: "robot" },
  credentialsRef: { group: "", name: "a", namespace: "b" },
};

/** Valid settings of each binding type. */
const BINDING_SETTINGS = {
  kv: { namespace: "store" },
  secret: { key: "token", store: "secrets" },
  service: { serviceRef: "other" },
} satisfies Record<(typeof BINDING_TYPES)[number], unknown>;

/** `value` at `path` (field names) of an otherwise empty object. */
function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

const SERVICE_CONFIGS: readonly (readonly [KindName, readonly string[]])[] = [
  ["Service", ["spec", "template", "spec"]],
  ["ServiceRevision", ["spec"]],
];
/** Each place a BundleRef sits, with a patch that sets both credentials there. */
const BUNDLE_REFS: readonly (readonly [KindName, readonly string[], unknown])[] = [
  ["Service", ["spec", "source", "oci"], { source: { oci: BOTH_CREDENTIALS } }],
  [
    "Service",
    ["spec", "source", "git", "build", "output"],
    { source: { oci: null, git: { ...GIT, build: { output: { ...REPO, ...BOTH_CREDENTIALS } } } } },
  ],
  ["ServiceRevision", ["spec", "bundle"], { bundle: BOTH_CREDENTIALS }],
];

export const CEL_RULES: readonly CelRule[] = [
  ...SERVICE_CONFIGS.map(
    ([kind, at]): CelRule => ({
      id: "backend-filter-exclusive",
      kind,
      at,
      rule: "!(has(self.backend) && has(self.filter))",
      fieldPath: ".filter",
      reason: "FieldValueForbidden",
      example: { self: nest(at.slice(1), { backend: {}, filter: {} }) },
    }),
  ),
  ...SERVICE_CONFIGS.map(
    ([kind, at]): CelRule => ({
      id: "egress-exclusive",
      kind,
      at: [...at, "egress"],
      rule: "!(has(self.disabled) && self.disabled && has(self.gatewayRef) && self.gatewayRef != '')",
      fieldPath: ".gatewayRef",
      reason: "FieldValueForbidden",
      example: { self: nest(at.slice(1), { egress: { disabled: true, gatewayRef: "gateway" } }) },
    }),
  ),
  // One rule per protocol: the schema's message names it, and a CEL `message` is fixed text.
  ...SERVICE_CONFIGS.flatMap(([kind, at]) =>
    PORT_PROTOCOLS.map(
      (protocol): CelRule => ({
        id: "backend-port-required",
        kind,
        at: [...at, "backend"],
        rule: `self.protocol != '${protocol}' || has(self.port)`,
        fieldPath: ".port",
        reason: "FieldValueRequired",
        example: { self: nest(at.slice(1), { backend: { protocol, port: null } }) },
      }),
    ),
  ),
  {
    id: "revision-history-range",
    kind: "Service",
    at: ["spec"],
    rule: "self.revisionHistoryLimit >= 0",
    fieldPath: ".revisionHistoryLimit",
    reason: "FieldValueInvalid",
    value: { expression: "self.revisionHistoryLimit", text: "-7" },
    example: { self: { revisionHistoryLimit: -7 } },
  },
  ...SERVICE_CONFIGS.map(
    ([kind, at]): CelRule => ({
      id: "backend-port-range",
      kind,
      at: [...at, "backend"],
      rule: "!has(self.port) || (self.port >= 1 && self.port <= 65535)",
      fieldPath: ".port",
      reason: "FieldValueInvalid",
      value: { expression: "self.port", text: "70000" },
      example: { self: nest(at.slice(1), { backend: { protocol: "tcp", port: 70000 } }) },
    }),
  ),
  // binding-type-match: per type, its own settings are required and every other type's are forbidden.
  ...SERVICE_CONFIGS.flatMap(([kind, at]) =>
    BINDING_TYPES.flatMap((type) =>
      BINDING_TYPES.map((variant): CelRule => {
        const required = variant === type;
        const binding = {
          name: "binding",
          type,
          ...(!required && { [type]: BINDING_SETTINGS[type], [variant]: BINDING_SETTINGS[variant] }),
        };
        return {
          id: "binding-type-match",
          kind,
          at: [...at, "bindings", 0],
          rule: `self.type != '${type}' || ${required ? "" : "!"}has(self.${variant})`,
          fieldPath: `.${variant}`,
          reason: required ? "FieldValueRequired" : "FieldValueForbidden",
          example: { self: nest(at.slice(1), { bindings: [binding] }) },
        };
      }),
    ),
  ),
  ...BUNDLE_REFS.map(
    ([kind, at, self]): CelRule => ({
      id: "bundle-credentials-exclusive",
      kind,
      at,
      rule: "!(has(self.credentials) && has(self.credentialsRef))",
      fieldPath: ".credentialsRef",
      reason: "FieldValueForbidden",
      example: { self },
    }),
  ),
  {
    id: "source-exactly-one",
    kind: "Service",
    at: ["spec", "source"],
    rule: "has(self.oci) || has(self.git)",
    reason: "FieldValueRequired",
    example: { self: { source: { oci: null, git: null } } },
  },
  {
    id: "source-exactly-one",
    kind: "Service",
    at: ["spec", "source"],
    rule: "!(has(self.oci) && has(self.git))",
    reason: "FieldValueForbidden",
    example: { self: { source: { oci: REPO, git: GIT } } },
  },
  // Section 7 requires runtime.compatibilityDate on a Service: a template without runtime lacks it, and both
  // servers report it there (inside runtime, the CRD's structural required says it).
  {
    id: "service-required-fields",
    kind: "Service",
    at: ["spec", "template", "spec"],
    rule: "has(self.runtime)",
    fieldPath: ".runtime.compatibilityDate",
    requires: "runtime",
    reason: "FieldValueRequired",
    example: { self: { template: { spec: { runtime: null } } } },
  },
  {
    id: "revision-bundle-digest",
    kind: "ServiceRevision",
    at: ["spec", "bundle"],
    rule: "has(self.digest)",
    fieldPath: ".digest",
    reason: "FieldValueRequired",
    example: { self: { bundle: { digest: null } } },
  },
  {
    id: "service-mode-immutable",
    kind: "Service",
    at: ["spec", "template", "spec"],
    rule: `!(${toFilter})`,
    fieldPath: ".filter",
    reason: "FieldValueForbidden",
    example: {
      previous: { template: { spec: { filter: null } } },
      self: { template: { spec: { backend: null, filter: {} } } },
    },
  },
  {
    id: "service-mode-immutable",
    kind: "Service",
    at: ["spec", "template", "spec"],
    rule: `!(${toBackend})`,
    fieldPath: ".backend",
    reason: "FieldValueForbidden",
    example: {
      previous: { template: { spec: { backend: null, filter: {} } } },
      self: { template: { spec: { filter: null } } },
    },
  },
  {
    id: "revision-spec-immutable",
    kind: "ServiceRevision",
    at: ["spec"],
    rule: "self == oldSelf",
    reason: "FieldValueForbidden",
    example: { previous: {}, self: { egress: { disabled: true } } },
  },
];

/** One entry of `x-kubernetes-validations`. */
export interface CelValidation {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason: CauseReason;
}

/** The CEL validations of one object of a kind's schema, and the required fields they report instead. */
export interface CelObjectValidations {
  /** The object's path from the object root. */
  at: readonly PathSegment[];
  validations: CelValidation[];
  /** Fields the CRD leaves out of this object's `required` (`CelRule.requires`). */
  requires: string[];
}

/** The CEL validations of a kind, per object carrying them. */
export function celValidations(kind: KindName): CelObjectValidations[] {
  const found = new Map<string, CelObjectValidations>();
  for (const cel of CEL_RULES.filter((entry) => entry.kind === kind)) {
    const at = formatPath(cel.at);
    const entry = found.get(at) ?? { at: cel.at, validations: [], requires: [] };
    found.set(at, {
      ...entry,
      validations: [...entry.validations, validation(cel, at)],
      requires: cel.requires === undefined ? entry.requires : [...entry.requires, cel.requires],
    });
  }
  return [...found.values()];
}

function validation(
  { id, kind, rule, fieldPath, reason, value, example }: CelRule,
  at: string,
): CelValidation {
  const previous = mergePatch.apply({}, example.previous ?? {});
  const next = mergePatch.apply(structuredClone(previous), example.self);
  const violations =
    example.previous === undefined ? validateSpec(kind, next) : validateUpdate(kind, previous, next);
  const path = `${at}${fieldPath ?? ""}`;
  // The example may break the rule elsewhere too (a rule naming several fields): the one at `path` counts.
  const broken = violations.filter((violation) => violation.rule === id);
  const found = broken.find((violation) => violation.path === path);
  if (found === undefined) {
    const where = broken.map((violation) => violation.path).join(", ") || "no field";
    throw new TypeError(`the CEL form of ${id} reports at ${path}; its example breaks it at ${where}`);
  }
  const message = found.message.slice(`${found.path}: `.length);
  const words = value === undefined ? { message } : { messageExpression: spliced(message, value) };
  return { rule, ...words, ...(fieldPath !== undefined && { fieldPath }), reason };
}

/** A CEL expression of `message` with each `value.text` in it replaced by the value. */
function spliced(message: string, value: { expression: string; text: string }): string {
  const parts = message.split(value.text).map((part) => part.replaceAll("%", "%%"));
  if (parts.length < 2) throw new TypeError(`the message "${message}" does not name the value ${value.text}`);
  // format(), not concatenation: kube-apiserver estimates the cost of `+` on a number's text as unbounded.
  // CEL's double-quoted literals escape as JSON's do.
  const values = Array(parts.length - 1).fill(value.expression);
  return `${JSON.stringify(parts.join("%s"))}.format([${values.join(", ")}])`;
}
