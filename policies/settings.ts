import type { PolicyConfigSchema } from "@pulumi/policy";
import type { PolicyConfigJSONSchema } from "@pulumi/policy/schema";
import { DURATION_PATTERN, LABEL_KEY_SCHEMA, LABEL_VALUE_SCHEMA } from "../sdk/schema";

/**
 * A policy's settings: the JSON schema Pulumi checks the policy config against before any policy runs, and
 * what the schema cannot say. The Pulumi CLI refuses a setting of the wrong type or form, naming it, but
 * it validates only the properties it knows, so a misspelt setting reaches the policy: `readSettings`
 * refuses it there (the preview fails with the policy's error) instead of silently applying a default.
 */

/** A list of glob patterns over `host/path`. */
export function globList(description: string): PolicyConfigJSONSchema {
  return { type: "array", items: { type: "string", minLength: 1 }, description };
}

/** A Go duration, such as `72h`. */
export function duration(description: string, defaultValue: string): PolicyConfigJSONSchema {
  return { type: "string", pattern: DURATION_PATTERN, default: defaultValue, description };
}

/** A map from label key to `values` (each a label value). */
export function labelMap(values: PolicyConfigJSONSchema, description: string): PolicyConfigJSONSchema {
  return {
    type: "object",
    propertyNames: { type: "string", ...LABEL_KEY_SCHEMA },
    additionalProperties: values,
    description,
  };
}

export const LABEL_VALUE: PolicyConfigJSONSchema = { type: "string", ...LABEL_VALUE_SCHEMA };

/** The settings every policy takes for its exemptions (policies/exemptions.ts reads them, not `readSettings`). */
export const EXEMPTION_SETTINGS = ["exemptions", "exemptionMaxDays"] as const;

/** A setting the policy config got wrong in a way its JSON schema cannot express. */
export class SettingError extends Error {
  constructor(policy: string, setting: string, problem: string) {
    super(`policy config "${policy}": setting "${setting}" ${problem}`);
    this.name = "SettingError";
    // @pulumi/policy prints an error's `stack`: for a mistake in the user's config, the message is all that
    // helps (a trace into this file, which the package does not ship, only hides it).
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * The policy's settings from `getConfig()`, with the schema's defaults where a setting is absent (the CLI
 * fills them in too; tests call policies without it). Throws a SettingError on a setting the schema does
 * not define.
 */
export function readSettings<T>(policy: string, schema: PolicyConfigSchema, config: object): T {
  const known = Object.keys(schema.properties);
  for (const key of Object.keys(config)) {
    if (!known.includes(key) && !(EXEMPTION_SETTINGS as readonly string[]).includes(key)) {
      const settings = known.length === 0 ? "it takes none" : `its settings are ${known.join(", ")}`;
      throw new SettingError(policy, key, `is not a setting of this policy (${settings}): fix its spelling`);
    }
  }
  const settings: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    const value = (config as Record<string, unknown>)[key];
    const fallback = typeof property === "object" ? property.default : undefined;
    if (value !== undefined || fallback !== undefined) settings[key] = value ?? fallback;
  }
  return settings as T;
}
