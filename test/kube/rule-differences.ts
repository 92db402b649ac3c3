/**
 * Where kube-apiserver (with the CRDs and the admission webhook) answers a rule's failing case
 * (test/policy/rule-cases.ts) otherwise than the local server, by rule id, each with the reason;
 * `test/kube/rules.test.ts` reads these. A rule not listed here is refused (or warned about) by both at the
 * same fields, by a CEL rule of the CRD (`sdk/schema/cel.ts`) or by the validating webhook, whose causes
 * are the local server's own.
 */
export interface RuleDifference {
  /** Why the answers differ. */
  reason: string;
  /**
   * Refused by the CRD's structural schema (types, enumerations, required fields, list-map keys) before any
   * webhook sees the object: at the same field, in Kubernetes' words (`Required value`, `Unsupported
   * value: …`), not the schema's.
   */
  structural?: true;
  /**
   * The object also has CEL rules the structural error kept from running: kube-apiserver adds a cause with
   * field `<nil>`, "some validation rules were not checked because the object was invalid".
   */
  celNotChecked?: true;
  /** kube-apiserver's cause fields, where they are not the local server's. */
  kubeFields?: readonly string[];
  /**
   * An unknown field: with the default field validation (`Warn`) both servers drop it and accept the object
   * with the same `Warning`; with `fieldValidation=Strict` (what kubectl sends) kube-apiserver's decoder
   * refuses the body with this status and no causes, the local server with 422 at the field.
   */
  unknownField?: { strictStatus: number };
}

const STRUCTURAL =
  "the CRD's structural schema refuses it before the webhooks are called, at the same field, worded by Kubernetes";
const CEL_NOT_CHECKED =
  "; the object's other rules are CEL rules that Kubernetes runs only on a structurally valid object, so it adds a `<nil>` cause saying they were not checked";

export const RULE_DIFFERENCES: Readonly<Record<string, RuleDifference>> = {
  "unknown-field": {
    reason:
      "Kubernetes' field validation: by default (Warn) both servers drop an unknown field and warn; under Strict kube-apiserver's decoder answers 400 BadRequest (\"strict decoding error\") with no causes, the local server 422 with the schema's cause (kube/README.md, The CRDs)",
    unknownField: { strictStatus: 400 },
  },
  "required-field": { reason: STRUCTURAL, structural: true },
  "service-required-fields": { reason: STRUCTURAL + CEL_NOT_CHECKED, structural: true, celNotChecked: true },
  "revision-bundle-required": {
    reason: STRUCTURAL + CEL_NOT_CHECKED,
    structural: true,
    celNotChecked: true,
  },
  "field-type": { reason: STRUCTURAL + CEL_NOT_CHECKED, structural: true, celNotChecked: true },
  "enum-value": { reason: STRUCTURAL + CEL_NOT_CHECKED, structural: true, celNotChecked: true },
  "unique-names": {
    reason:
      "env and bindings are map lists keyed by name (x-kubernetes-list-type: map): kube-apiserver refuses a duplicate key itself, as `Duplicate value: {\"name\":…}` at the item (`env[1]`); the schema's rule names the item's `name` field",
    structural: true,
    kubeFields: ["spec.template.spec.env[1]"],
  },
};
