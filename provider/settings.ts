import { readFileSync } from "node:fs";
import { baseUrlProblem, SETTINGS, type SettingName } from "../sdk/client/settings";

/** Where and how the provider reaches the API; read from stack config and EXAMPLEDEV_* variables. */
export interface Settings {
  baseUrl: string;
  token?: string;
  ca?: string;
  timeoutMs: number;
}

/**
 * The stack config keys the provider reads, with the environment variable, precedence, default and
 * description of each: the settings data of `sdk/client/settings.ts`, declared there once.
 */
export const SETTING_KEYS = SETTINGS;

export interface ConfigSource {
  get(key: string): string | undefined;
}

function reader(config: ConfigSource, env: NodeJS.ProcessEnv) {
  return (name: SettingName) => {
    const setting = SETTINGS[name];
    const fromConfig = nonEmpty(config.get(setting.config));
    const fromEnv = nonEmpty(env[setting.env]);
    return setting.precedence === "environment" ? (fromEnv ?? fromConfig) : (fromConfig ?? fromEnv);
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

/** A setting's name as messages give it: the config key and, in parentheses, the variable. */
function named(name: SettingName): string {
  const { config, env } = SETTINGS[name];
  return `${config} (or ${env})`;
}

/**
 * Whether `check` leaves spec errors to the policy pack. A preview stops at the first resource whose check
 * fails; a pull-request check that runs the pack wants every violation of the stack listed at once instead.
 * The server still rejects what is invalid at `pulumi up`.
 */
export function validationDeferredToPolicies(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return booleanSetting(config, "deferValidationToPolicies", env);
}

/** The settings that are switches: "true" or "false", else their default. */
export type SwitchName = {
  [K in SettingName]: (typeof SETTINGS)[K] extends { default: boolean } ? K : never;
}[SettingName];

/** A switch's value; anything but "true" or "false" is an error naming the setting. */
export function booleanSetting(
  config: ConfigSource,
  name: SwitchName,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const setting = SETTINGS[name];
  const value = reader(config, env)(name);
  if (value === undefined) return setting.default;
  if (value === "true" || value === "false") return value === "true";
  throw new Error(`${setting.config} must be true or false, not "${value}"`);
}

/** Whether an API address is set at all (valid or not): without one, nothing is asked of the API. */
export function apiAddressConfigured(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): boolean {
  return reader(config, env)("baseUrl") !== undefined;
}

export function resolveSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): Settings {
  const read = reader(config, env);
  const baseUrl = read("baseUrl");
  if (baseUrl === undefined) {
    throw new Error(
      `no API address configured: set it with \`pulumi config set ${SETTINGS.baseUrl.config} http://127.0.0.1:8080\` ` +
        `or the ${SETTINGS.baseUrl.env} environment variable`,
    );
  }
  const problem = baseUrlProblem(baseUrl, named("token"));
  if (problem !== undefined) throw new Error(`${named("baseUrl")} ${problem}`);
  const timeout = SETTINGS.requestTimeoutSeconds;
  const timeoutText = read("requestTimeoutSeconds");
  const timeoutSeconds = timeoutText === undefined ? timeout.default : Number(timeoutText);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new Error(
      `${timeout.config} must be a positive number of seconds, for example ${timeout.default} (the default)`,
    );
  }
  const caFile = read("caCertificateFile");
  const ca = read("caCertificate") ?? (caFile === undefined ? undefined : readFileSync(caFile, "utf8"));
  const token = read("token");
  return {
    baseUrl,
    timeoutMs: timeoutSeconds * 1000,
    ...(token !== undefined && { token }),
    ...(ca !== undefined && { ca }),
  };
}
