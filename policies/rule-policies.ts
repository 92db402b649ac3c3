import type { EnforcementLevel, ResourceRemediation, ResourceValidationPolicy } from "@pulumi/policy";
import { parsePath, RULES, type RuleInfo, type Severity } from "../sdk/schema";
import { policyMetadata, ruleFix, ruleSeverity } from "./metadata";
import { applyEdits, remediationProperties } from "./remediation";
import { describeResource, kindOfType, plainProperties } from "./resources";
import { RULE_REMEDIATIONS, type RuleRemediation } from "./rule-remediations";
import { specViolations } from "./spec-violations";

/** Errors block a preview; warnings are reported and let it pass. Policy config can change either. */
function enforcementLevelOf(severity: Severity): EnforcementLevel {
  return severity === "error" ? "mandatory" : "advisory";
}

/** A remediation for the rule's violations: the edits its remedy makes for each violation the schema finds. */
function remediateRule(rule: RuleInfo, remedy: RuleRemediation): ResourceRemediation {
  return ({ type, props }) => {
    const kind = kindOfType(type);
    if (kind === undefined || !rule.kinds.includes(kind)) return undefined;
    const plain = remediationProperties(props);
    if (plain.spec === undefined) return undefined;
    const edits = specViolations(kind, plain.spec)
      .filter((violation) => violation.rule === rule.id)
      .flatMap((violation) => remedy.edits(parsePath(violation.path), plain));
    return applyEdits(props, edits);
  };
}

/**
 * The policy for one rule of the shared schema: it reads the schema's validation of the resource's spec (one
 * for all the rule policies, spec-violations.ts) and reports that rule's violations only, so each rule can be
 * enforced, lowered or disabled on its own. Rules with an unambiguous fix (RULE_REMEDIATIONS) also remediate,
 * when a policy config sets them to `remediate`.
 */
function rulePolicy(rule: RuleInfo): ResourceValidationPolicy {
  const remedy = RULE_REMEDIATIONS[rule.id];
  return {
    ...(remedy && { remediateResource: remediateRule(rule, remedy) }),
    name: rule.id,
    description: rule.description,
    enforcementLevel: enforcementLevelOf(rule.severity),
    ...policyMetadata({
      name: rule.id,
      area: "api-rule",
      kinds: rule.kinds,
      severity: ruleSeverity(rule.severity),
      fix: ruleFix(rule),
    }),
    validateResource: ({ type, name, props }, reportViolation) => {
      const kind = kindOfType(type);
      if (kind === undefined || !rule.kinds.includes(kind)) return;
      const { spec } = plainProperties(props);
      // An absent spec leaves nothing to judge, like an unknown one; the provider's check reports it missing.
      if (spec === undefined) return;
      for (const violation of specViolations(kind, spec)) {
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
