import type { KindName } from "../kinds";
import type { RuleInfo } from "../violation";

/**
 * Section 7 names some required fields itself; a missing one reports these ids instead of the generic
 * "required-field". `fields` are paths from the object root.
 */
export interface RequiredFieldsRule {
  info: RuleInfo;
  kind: KindName;
  fields: readonly string[];
  /**
   * Objects whose absence is reported at one of `fields` inside them, the one section 7 names and the one to
   * set: a Service without `runtime` lacks `runtime.compatibilityDate`.
   */
  reportedAt?: Readonly<Record<string, string>>;
  /** What to set a field to, where its type alone says too little ("a string" for a date). */
  hints?: Readonly<Record<string, string>>;
}

const COMPATIBILITY_DATE = "spec.template.spec.runtime.compatibilityDate";

const serviceRequired = ["spec.source", "spec.template", "spec.template.spec", COMPATIBILITY_DATE];

export const serviceRequiredFields: RequiredFieldsRule = {
  info: {
    id: "service-required-fields",
    kinds: ["Service"],
    path: serviceRequired.join(" | "),
    severity: "error",
    description:
      'A Service needs spec.source, spec.template, spec.template.spec and spec.template.spec.runtime.compatibilityDate: set the missing field (compatibilityDate takes a date such as "2026-01-01").',
  },
  kind: "Service",
  fields: serviceRequired,
  reportedAt: { "spec.template.spec.runtime": COMPATIBILITY_DATE },
  hints: {
    [COMPATIBILITY_DATE]: 'a date such as "2026-01-01" (the worker runtime\'s compatibility date)',
  },
};

export const revisionBundleRequired: RequiredFieldsRule = {
  info: {
    id: "revision-bundle-required",
    kinds: ["ServiceRevision"],
    path: "spec.bundle",
    severity: "error",
    description:
      "A ServiceRevision needs spec.bundle: set it to the resolved artifact it runs (repo and digest).",
  },
  kind: "ServiceRevision",
  fields: ["spec.bundle"],
};
