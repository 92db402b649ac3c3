/**
 * Where kube-apiserver (with the CRDs and the admission webhook) answers a rule's failing case
 * (test/policy/rule-cases.ts) otherwise than the local server, by rule id, each with the reason;
 * `test/kube/rules.test.ts` reads these. A rule not listed here is refused (or warned about) by both with the
 * same causes: the webhook runs the local server's admission code.
 */
export interface RuleDifference {
  /** Why the answers differ. */
  reason: string;
  /**
   * An unknown field: with the default field validation (`Warn`) both servers drop it and accept the object
   * with the same `Warning`; with `fieldValidation=Strict` (what kubectl sends) kube-apiserver's decoder
   * refuses the body with this status and no causes, the local server with 422 at the field.
   */
  unknownField: { strictStatus: number };
}

export const RULE_DIFFERENCES: Readonly<Record<string, RuleDifference>> = {
  "unknown-field": {
    reason:
      "Kubernetes' field validation happens while decoding, before admission: by default (Warn) both servers drop an unknown field and warn; under Strict kube-apiserver's decoder answers 400 BadRequest (\"strict decoding error\") with no causes, the local server 422 with the schema's cause (kube/README.md, The CRDs)",
    unknownField: { strictStatus: 400 },
  },
};
