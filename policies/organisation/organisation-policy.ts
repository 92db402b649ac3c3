import type { PolicyConfigSchema, ResourceValidationPolicy, Severity } from "@pulumi/policy";
import type { KindName } from "../../sdk/schema";
import { policyMetadata } from "../metadata";
import { applyEdits, type Edit, remediationProperties } from "../remediation";
import { describeResource, kindOfType, plainProperties } from "../resources";
import { readSettings } from "../settings";

/**
 * An organisation's own rule, beyond the API's: `disabled` until a team's policy config turns it on, with
 * settings Pulumi validates against `configSchema` before any policy runs.
 */
export interface OrganisationPolicyDefinition<Settings> {
  name: string;
  /** What it requires and what that protects. */
  description: string;
  kinds: readonly KindName[];
  configSchema: PolicyConfigSchema;
  /** How much a violation matters, on Pulumi's scale (`low` to `critical`). */
  severity: Severity;
  /** How the author fixes a violation: Pulumi's `remediationSteps`. */
  fix: string;
  /** What `remediate` fixes, or why the policy has none; for the documentation. */
  remediation: string;
  /** Refuses settings the JSON schema cannot judge (throw a SettingError). */
  checkSettings?(settings: Settings): void;
  /** The violations of one resource (plain properties): each `field.path: what is wrong; how to fix it`. */
  check(kind: KindName, props: Record<string, unknown>, settings: Settings): string[];
  /** The edits that fix the resource's violations without changing what the author meant. */
  remediate?(kind: KindName, props: Record<string, unknown>, settings: Settings): Edit[];
}

/** What the pack serves, and what the documentation lists, for one organisation policy. */
export interface OrganisationPolicy {
  policy: ResourceValidationPolicy & { configSchema: PolicyConfigSchema };
  kinds: readonly KindName[];
  remediation: string;
}

export function organisationPolicy<Settings>(
  definition: OrganisationPolicyDefinition<Settings>,
): OrganisationPolicy {
  const { name, description, kinds, configSchema, remediation, severity, fix } = definition;
  const settingsOf = (config: object) => {
    const settings = readSettings<Settings>(name, configSchema, config);
    definition.checkSettings?.(settings);
    return settings;
  };
  const { remediate } = definition;
  return {
    kinds,
    remediation,
    policy: {
      name,
      description,
      enforcementLevel: "disabled",
      ...policyMetadata({ name, area: "organisation", kinds, severity, fix }),
      configSchema,
      validateResource: ({ type, name: resourceName, props, getConfig }, reportViolation) => {
        const kind = kindOfType(type);
        if (kind === undefined || !kinds.includes(kind)) return;
        for (const message of definition.check(kind, plainProperties(props), settingsOf(getConfig()))) {
          reportViolation(`${describeResource(kind, resourceName)}: ${message}`);
        }
      },
      ...(remediate && {
        remediateResource: ({ type, props, getConfig }) => {
          const kind = kindOfType(type);
          if (kind === undefined || !kinds.includes(kind)) return undefined;
          return applyEdits(props, remediate(kind, remediationProperties(props), settingsOf(getConfig())));
        },
      }),
    },
  };
}
