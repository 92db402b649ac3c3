import type {
  Policy,
  PolicyConfigSchema,
  ReportViolation,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import type { PolicyConfigJSONSchema } from "@pulumi/policy/schema";
import { isRecord } from "../sdk/shared/records";
import { daysBetween, isValidDate, today } from "./dates";
import { objectName, plainProperties } from "./resources";
import { EXEMPTION_SETTINGS, SettingError } from "./settings";

/**
 * Per-resource exemptions from a policy, with a reason, an owner and an expiry, written in the policy config
 * beside the policy's enforcement level:
 *
 *     "drain-minimum": { "exemptions": [{ "resource": "legacy-*", "reason": "…", "owner": "team-edge",
 *                                         "expires": "2026-12-31" }], "exemptionMaxDays": 90 }
 *
 * An exempted violation is not a violation: it is reported as an advisory notice naming the reason, owner and
 * expiry. An expired exemption does not apply, and the violation's message says it expired, and when. This one
 * module decides both for the pack (every policy is wrapped by `withExemptions`), the audit and the report.
 */

export { EXEMPTION_SETTINGS, today };

export interface Exemption {
  /** A glob over `metadata.name` (`*` any run of characters, `?` one), or a URN (`urn:pulumi:…`, also a glob). */
  resource: string;
  reason: string;
  owner: string;
  /** `YYYY-MM-DD`: the exemption applies through that day (UTC). */
  expires: string;
}

export const EXEMPTION_CONFIG: Record<(typeof EXEMPTION_SETTINGS)[number], PolicyConfigJSONSchema> = {
  exemptions: {
    type: "array",
    description:
      "Resources exempted from this policy, each with a reason, an owner and an expiry date (YYYY-MM-DD, through that day, UTC): `resource` is a glob over metadata.name (`*`, `?`) or a URN. An expired exemption no longer applies.",
    items: {
      type: "object",
      properties: {
        resource: { type: "string", minLength: 1 },
        reason: { type: "string" },
        owner: { type: "string" },
        expires: { type: "string" },
      },
      additionalProperties: false,
    },
    default: [],
  },
  exemptionMaxDays: {
    type: "integer",
    minimum: 1,
    description:
      "How many days ahead an exemption's expiry may be (no cap when unset): a later expiry is refused.",
  },
};

/** The policy's config schema with the exemption settings added. */
export function withExemptionSchema(schema: PolicyConfigSchema | undefined): PolicyConfigSchema {
  return { ...schema, properties: { ...schema?.properties, ...EXEMPTION_CONFIG } };
}

/**
 * The policy's exemptions from its config (what `getConfig()` returns), checked: throws a SettingError naming
 * the field of an exemption without `resource`, `reason`, `owner` or a valid `expires`, and of an expiry
 * further ahead than `exemptionMaxDays`.
 */
export function readExemptions(policy: string, config: unknown, on: string = today()): Exemption[] {
  if (!isRecord(config)) return [];
  const list = config.exemptions ?? [];
  if (!Array.isArray(list)) throw new SettingError(policy, "exemptions", "must be a list of exemptions");
  const maxDays = config.exemptionMaxDays;
  if (maxDays !== undefined && (typeof maxDays !== "number" || !Number.isInteger(maxDays) || maxDays < 1))
    throw new SettingError(policy, "exemptionMaxDays", "must be a whole number of days, 1 or more");
  return list.map((entry, index): Exemption => {
    const at = `exemptions[${index}]`;
    if (!isRecord(entry)) throw new SettingError(policy, at, "must be an object");
    for (const key of Object.keys(entry)) {
      if (!["resource", "reason", "owner", "expires"].includes(key))
        throw new SettingError(
          policy,
          `${at}.${key}`,
          "is not a field of an exemption (resource, reason, owner, expires)",
        );
    }
    for (const field of ["resource", "reason", "owner", "expires"] as const) {
      const value = entry[field];
      if (typeof value !== "string" || value.trim() === "")
        throw new SettingError(
          policy,
          `${at}.${field}`,
          "is missing: every exemption names the resource, a reason, an owner and the date it expires (YYYY-MM-DD)",
        );
    }
    const exemption = entry as unknown as Exemption;
    if (!isValidDate(exemption.expires))
      throw new SettingError(
        policy,
        `${at}.expires`,
        `is ${JSON.stringify(exemption.expires)}, not a date: write YYYY-MM-DD`,
      );
    if (typeof maxDays === "number" && daysBetween(on, exemption.expires) > maxDays)
      throw new SettingError(
        policy,
        `${at}.expires`,
        `is ${exemption.expires}, more than exemptionMaxDays (${maxDays}) days ahead of ${on}: choose an earlier date`,
      );
    return {
      resource: exemption.resource,
      reason: exemption.reason,
      owner: exemption.owner,
      expires: exemption.expires,
    };
  });
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split("")
    .map((character) => {
      if (character === "*") return ".*";
      if (character === "?") return ".";
      return character.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}$`);
}

/** Whether the exemption names the resource: a URN pattern matches its URN, any other its metadata.name. */
export function exemptionMatches(exemption: Exemption, resource: { name?: string; urn?: string }): boolean {
  const target = exemption.resource.startsWith("urn:") ? resource.urn : resource.name;
  return target !== undefined && globToRegExp(exemption.resource).test(target);
}

/** What an exemption does to one violation of one resource. */
export type Judgement =
  | { exempted: true; exemption: Exemption }
  | { exempted: false; message: string; expired?: Exemption };

/**
 * Judges one violation: exempted by the first live exemption naming the resource; otherwise a violation, whose
 * message says when the exemption that named the resource expired.
 */
export function judge(
  exemptions: readonly Exemption[],
  resource: { name?: string; urn?: string },
  message: string,
  on: string = today(),
): Judgement {
  const matching = exemptions.filter((exemption) => exemptionMatches(exemption, resource));
  const live = matching.find((exemption) => exemption.expires >= on);
  if (live) return { exempted: true, exemption: live };
  const expired = [...matching].sort((a, b) => b.expires.localeCompare(a.expires))[0];
  if (!expired) return { exempted: false, message };
  return {
    exempted: false,
    expired,
    message: `${message} (its exemption expired on ${expired.expires}: ${JSON.stringify(expired.reason)}, owner ${expired.owner}; renew it with a later expires, or fix the resource)`,
  };
}

/** The advisory notice for an exempted violation. */
export function exemptionNotice(message: string, exemption: Exemption): string {
  return `exempted until ${exemption.expires} (owner ${exemption.owner}): ${exemption.reason}; the violation: ${message}`;
}

/**
 * The object form of `reportViolation` that @pulumi/policy's server accepts (it is left out of its typings):
 * an exempted violation goes out as an advisory diagnostic of the same policy, and carries the exemption for
 * callers of the policy other than the CLI (the audit).
 */
export interface ExemptedReport {
  message: string;
  urn?: string;
  enforcementLevel: "advisory";
  exemption: Exemption;
}

export function isExemptedReport(value: unknown): value is ExemptedReport {
  return isRecord(value) && isRecord(value.exemption) && typeof value.message === "string";
}

function exemptingReporter(
  policy: Policy,
  exemptions: readonly Exemption[],
  reportViolation: ReportViolation,
  resourceOf: (urn: string | undefined) => { name?: string; urn?: string },
  on: string,
): ReportViolation {
  return (message: string, urn?: string) => {
    const judgement = judge(exemptions, resourceOf(urn), message, on);
    if (!judgement.exempted) {
      reportViolation(judgement.message, urn);
      return;
    }
    const report: ExemptedReport = {
      message: `${policy.description}\n${exemptionNotice(message, judgement.exemption)}`,
      enforcementLevel: "advisory",
      exemption: judgement.exemption,
      ...(urn !== undefined && { urn }),
    };
    (reportViolation as unknown as (report: ExemptedReport) => void)(report);
  };
}

/**
 * The policy, honouring the exemptions of its config: its schema takes `exemptions` and `exemptionMaxDays`,
 * and each violation it reports goes through `judge`.
 */
export function withExemptions<P extends ResourceValidationPolicy | StackValidationPolicy>(
  policy: P,
  now: () => string = () => today(),
): P {
  const configSchema = withExemptionSchema(policy.configSchema);
  if ("validateStack" in policy) {
    const stackPolicy = policy as StackValidationPolicy;
    return {
      ...stackPolicy,
      configSchema,
      validateStack: (args, reportViolation) => {
        const on = now();
        const exemptions = readExemptions(policy.name, args.getConfig(), on);
        if (exemptions.length === 0) return stackPolicy.validateStack(args, reportViolation);
        const resourceOf = (urn: string | undefined) => {
          const resource = args.resources.find((candidate) => candidate.urn === urn);
          return { urn, name: resource ? objectName(plainProperties(resource.props)) : undefined };
        };
        return stackPolicy.validateStack(
          args,
          exemptingReporter(policy, exemptions, reportViolation, resourceOf, on),
        );
      },
    } as P;
  }
  const resourcePolicy = policy as ResourceValidationPolicy;
  const validations = [resourcePolicy.validateResource ?? []].flat();
  return {
    ...resourcePolicy,
    configSchema,
    validateResource: async (args, reportViolation) => {
      const on = now();
      const exemptions = readExemptions(policy.name, args.getConfig(), on);
      const reporter =
        exemptions.length === 0
          ? reportViolation
          : exemptingReporter(
              policy,
              exemptions,
              reportViolation,
              (urn) => ({ urn: urn ?? args.urn, name: objectName(plainProperties(args.props)) }),
              on,
            );
      for (const validate of validations) await validate(args, reporter);
    },
  } as P;
}

const NOTICE = /^exempted until (\d{4}-\d{2}-\d{2}) \(owner (.*?)\): (.*?); the violation: (.*)$/s;

/**
 * The exemption an advisory notice names (what `exemptionNotice` wrote, read back from a preview's events,
 * where the CLI keeps only the message): for the pull-request report's own section.
 */
export function parseExemptionNotice(
  message: string,
): { expires: string; owner: string; reason: string; violation: string } | undefined {
  const line = message.split("\n").findIndex((text) => text.startsWith("exempted until "));
  if (line < 0) return undefined;
  const match = NOTICE.exec(message.split("\n").slice(line).join("\n"));
  if (!match) return undefined;
  const [, expires = "", owner = "", reason = "", violation = ""] = match;
  return { expires, owner, reason, violation };
}
