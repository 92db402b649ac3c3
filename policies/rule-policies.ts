import type { EnforcementLevel, ResourceValidationPolicy } from "@pulumi/policy";
import { RULES, type RuleInfo, type Severity, validateSpec } from "../sdk/schema";
import { describeResource, kindOfType, plainProperties } from "./resources";

/** Errors block a preview; warnings are reported and let it pass. Policy config can change either. */
function enforcementLevelOf(severity: Severity): EnforcementLevel {
  return severity === "error" ? "mandatory" : "advisory";
}

/**
 * The policy for one rule of the shared schema: it runs the schema's validation on the resource's spec and
 * reports that rule's violations only, so each rule can be enforced, lowered or disabled on its own.
 */
function rulePolicy(rule: RuleInfo): ResourceValidationPolicy {
  return {
    name: rule.id,
    description: rule.description,
    enforcementLevel: enforcementLevelOf(rule.severity),
    validateResource: ({ type, name, props }, reportViolation) => {
      const kind = kindOfType(type);
      if (kind === undefined || !rule.kinds.includes(kind)) return;
      const { spec } = plainProperties(props);
      // An absent spec leaves nothing to judge, like an unknown one; the provider's check reports it missing.
      if (spec === undefined) return;
      for (const violation of validateSpec(kind, spec)) {
        if (violation.rule === rule.id)
          reportViolation(`${describeResource(kind, name)}: ${violation.message}`);
      }
    },
  };
}

/**
 * Rules about changes (`change: true`) compare the stored spec with the new one. A policy only ever sees the
 * new inputs, so these stay with the provider's diff (a replacement) and the server's admission.
 */
export const RULE_POLICIES: readonly ResourceValidationPolicy[] = RULES.filter((rule) => !rule.change).map(
  rulePolicy,
);
