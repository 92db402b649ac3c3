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
}

const serviceRequired = [
  "spec.source",
  "spec.template",
  "spec.template.spec",
  "spec.template.spec.runtime.compatibilityDate",
];

export const serviceRequiredFields: RequiredFieldsRule = {
  info: {
    id: "service-required-fields",
    kinds: ["Service"],
    path: serviceRequired.join(" | "),
    severity: "error",
    description:
      "A Service needs spec.source, spec.template and spec.template.spec, and its runtime needs compatibilityDate: set the missing field.",
  },
  kind: "Service",
  fields: serviceRequired,
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
