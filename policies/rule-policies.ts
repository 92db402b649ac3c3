import type { EnforcementLevel, ResourceValidationPolicy } from "@pulumi/policy";
import { RULES, type RuleInfo, type Severity, validateSpec } from "../sdk/schema";
import { describeResource, kindOfType, plainProperties } from "./resources";

/** Errors block a preview; warnings are reported and let it pass. Policy config can change either. */
export function enforcementLevelOf(severity: Severity): EnforcementLevel {
  return severity === "error" ? "mandatory" : "advisory";
}

/**
 * The policy for one rule of the shared schema: it runs the schema's validation on the resource's spec and
 * reports that rule's violations only, so each rule can be enforced, lowered or disabled on its own.
 */
export function rulePolicy(rule: RuleInfo): ResourceValidationPolicy {
  return {
    name: rule.id,
    description: rule.description,
    enforcementLevel: enforcementLevelOf(rule.severity),
    validateResource: ({ type, name, props }, reportViolation) => {
      const kind = kindOfType(type);
      if (kind === undefined || !rule.kinds.includes(kind)) return;
      const { spec } = plainProperties(props);
      // Absent like an unknown value during preview; a spec that is really missing fails the provider's check.
      if (spec === undefined) return;
      for (const violation of validateSpec(kind, spec)) {
        if (violation.rule === rule.id) reportViolation(`${describeResource(kind, name)}: ${violation.message}`);
      }
    },
  };
}

export const RULE_POLICIES: readonly ResourceValidationPolicy[] = RULES.map(rulePolicy);
