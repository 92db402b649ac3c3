import type {
  Policy,
  Severity as PolicySeverity,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import type { KindName, RuleInfo, Severity } from "../sdk/schema";
import { packageManifest } from "../sdk/shared/package-manifest";
import { isRecord } from "../sdk/shared/records";

/**
 * Pulumi's policy metadata (`severity`, `remediationSteps`, `url`, `tags`), made in one place for every policy
 * of the pack from what the pack already says of it: the rule catalogue's severity and fix text, and a heading
 * of its own in the resource reference, where `url` points.
 */

/** The page with one heading per policy (scripts/lib/reference-policies.ts writes it). */
export const POLICY_REFERENCE = "docs/reference.md";

/** What a policy is about, as a tag: an API rule, a check across the stack, an organisation's own rule. */
export type PolicyArea = "api-rule" | "stack" | "organisation" | "policy-config";

export interface PolicyMetadata {
  severity: PolicySeverity;
  remediationSteps: string;
  url: string;
  tags: string[];
}

export interface MetadataSource {
  name: string;
  area: PolicyArea;
  kinds: readonly KindName[];
  severity: PolicySeverity;
  /** How to fix a violation, as a sentence. */
  fix: string;
}

/** A rule's errors block a preview and its warnings do not: high and medium on Pulumi's scale. */
export function ruleSeverity(severity: Severity): PolicySeverity {
  return severity === "error" ? "high" : "medium";
}

/** The fix a rule's description gives after what it requires (every description reads "what: how to fix"). */
export function ruleFix(rule: RuleInfo): string {
  const at = rule.description.indexOf(": ");
  const fix = at < 0 ? rule.description : rule.description.slice(at + 2);
  return fix.charAt(0).toUpperCase() + fix.slice(1);
}

/** `ServiceRevision` → `service-revision`: kinds as tags. */
const kindTag = (kind: KindName) => kind.replace(/(?<=[a-z])(?=[A-Z])/g, "-").toLowerCase();

/** The policy's heading in the reference: its name is its anchor (GitHub's slug of "### `name`"). */
export function policyUrl(name: string): string {
  return `${packageManifest().homepage}/blob/main/${POLICY_REFERENCE}#${name}`;
}

export function policyMetadata({ name, area, kinds, severity, fix }: MetadataSource): PolicyMetadata {
  return { severity, remediationSteps: fix, url: policyUrl(name), tags: [area, ...kinds.map(kindTag)] };
}

type Report = (message: unknown, urn?: string) => void;

/**
 * The policy as the pack serves it: each violation's message ends with how to fix it and where the policy is
 * documented. Pulumi's engine events and `--json` carry only the severity of a policy's metadata, so the
 * message is what brings the rest to the CLI's output, its event log and the pull-request report.
 */
export function withReference<P extends Policy>(policy: P): P {
  const suffix = `\nHow to fix: ${policy.remediationSteps}\nReference: ${policy.url}`;
  const wrap =
    (report: ReportViolation): ReportViolation =>
    (message: unknown, urn?: string) => {
      const text = (value: unknown) => `${String(value)}${suffix}`;
      // The object form (exempted reports, policies/exemptions.ts) carries the message inside.
      const given = isRecord(message) ? { ...message, message: text(message.message) } : text(message);
      (report as Report)(given, urn);
    };
  if ("validateStack" in policy) {
    const { validateStack } = policy as StackValidationPolicy;
    const served: StackValidationPolicy = {
      ...(policy as StackValidationPolicy),
      validateStack: (args, report) => validateStack(args, wrap(report)),
    };
    return served as unknown as P;
  }
  const validations = [(policy as ResourceValidationPolicy).validateResource ?? []].flat();
  return {
    ...policy,
    validateResource: async (args: ResourceValidationArgs, report: ReportViolation) => {
      for (const validate of validations) await validate(args, wrap(report));
    },
  };
}
