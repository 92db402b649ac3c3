// docs/reference.md's "Policies" section: a heading per policy of the pack, the page each policy's `url`
// metadata points at (policies/metadata.ts), with what it requires, how much it matters and how to fix it.
import type { Policy } from "@pulumi/policy";
import { POLICIES } from "../../policies/policies";
import { code, markdown } from "./docs";

/** The metadata policies/metadata.ts gives every policy (the typings of Policy declare it optional). */
type DocumentedPolicy = Policy & Required<Pick<Policy, "severity" | "remediationSteps" | "tags">>;

function documented(policy: Policy): DocumentedPolicy {
  if (policy.severity === undefined || policy.remediationSteps === undefined || policy.tags === undefined)
    throw new Error(`policy ${policy.name} has no severity, remediationSteps or tags (policies/metadata.ts)`);
  return policy as DocumentedPolicy;
}

function policySection(policy: DocumentedPolicy): string {
  return [
    `### ${policy.name}`,
    "",
    markdown(policy.description),
    "",
    `- **severity**: ${policy.severity}; **enforcement** by default: ${policy.enforcementLevel ?? "advisory"}`,
    `- **fix**: ${markdown(policy.remediationSteps)}`,
    `- **tags**: ${policy.tags.map(code).join(", ")}`,
  ].join("\n");
}

export function policiesSection(): string {
  return [
    "## Policies",
    "",
    "Every policy of the pack, under its name: the heading each policy's `url` metadata points at. Pulumi",
    "reports a violation's severity (low to critical) in its JSON events; the",
    "[rules table](policy-pack.md#validation-rules) says where each rule applies, and the",
    "[organisation policies](policy-pack.md#organisation-policies) their settings.",
    "",
    ...POLICIES.map(documented).flatMap((policy) => [policySection(policy), ""]),
  ].join("\n");
}
