import { readFileSync } from "node:fs";
import {
  type KubeconfigCredentials,
  KubeconfigError,
  type KubeconfigOrigin,
  readKubeconfig,
} from "../sdk/client/kubeconfig";
import {
  addressGiven,
  baseUrlProblem,
  MAX_RETRIES_LIMIT,
  SET_ADDRESS_HINT,
  SETTINGS,
  type SettingName,
} from "../sdk/client/settings";
import type { AccessOrigins } from "./access";

/** Where and how the provider reaches the API; read from stack config and EXAMPLEDEV_* variables. */
export interface Settings {
  baseUrl: string;
  token?: string;
  ca?: string;
  /** Client certificate and key (mutual TLS), from a kubeconfig's user. */
  cert?: string;
  key?: string;
  /** A kubeconfig's `insecure-skip-tls-verify`. */
  insecureSkipTlsVerify?: boolean;
  timeoutMs: number;
  maxRetries: number;
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

/** Where a setting's value comes from, as `reader` picks it: the environment variable, the stack config, or neither. */
export function settingOrigin(
  config: ConfigSource,
  name: SettingName,
  env: NodeJS.ProcessEnv = process.env,
): "environment" | "config" | undefined {
  const setting = SETTINGS[name];
  const fromConfig = nonEmpty(config.get(setting.config)) !== undefined;
  const fromEnv = nonEmpty(env[setting.env]) !== undefined;
  const first = setting.precedence === "environment" ? fromEnv : fromConfig;
  if (first) return setting.precedence === "environment" ? "environment" : "config";
  if (setting.precedence === "environment" ? fromConfig : fromEnv)
    return setting.precedence === "environment" ? "config" : "environment";
  return undefined;
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

/** Every switch, from the settings data. */
const SWITCHES = (Object.keys(SETTINGS) as SettingName[]).filter(
  (name): name is SwitchName => typeof (SETTINGS[name] as { default?: unknown }).default === "boolean",
);

/** A switch's value; anything but "true" or "false" is an error naming the setting. */
export function booleanSetting(
  config: ConfigSource,
  name: SwitchName,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const setting = SETTINGS[name];
  const value = reader(config, env)(name);
  if (value === undefined) {
    // A default that follows another switch (serverDryRun is off while validation is left to the pack).
    const offWith = (setting as { defaultOffWith?: SwitchName }).defaultOffWith;
    return setting.default && !(offWith !== undefined && booleanSetting(config, offWith, env));
  }
  if (value === "true" || value === "false") return value === "true";
  throw new Error(`${setting.config} must be true or false, not "${value}"`);
}

/**
 * Whether an API address is set at all (valid or not), directly or through a kubeconfig: without one,
 * nothing is asked of the API.
 */
export function apiAddressConfigured(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): boolean {
  return addressGiven((key) => config.get(key), env);
}

/** A context is chosen in a kubeconfig: without one, the setting would be silently ignored. */
function checkedContext(context: string | undefined, kubeconfig: string | undefined): string | undefined {
  if (context !== undefined && kubeconfig === undefined) {
    throw new Error(
      `${named("context")} chooses a kubeconfig context, but no kubeconfig is set: set ${named("kubeconfig")} to the file's path`,
    );
  }
  return context;
}

/**
 * What the kubeconfig gives for the fields the explicit settings leave open (they win field by field);
 * errors name the setting, the file and the context, and never a token or a key.
 */
function kubeconfigCredentials(
  read: (name: SettingName) => string | undefined,
  given: { baseUrl: boolean; token: boolean; ca: boolean },
  onOrigin?: (origin: KubeconfigOrigin) => void,
): KubeconfigCredentials {
  const kubeconfig = read("kubeconfig");
  const context = checkedContext(read("context"), kubeconfig);
  if (kubeconfig === undefined) return {};
  try {
    return readKubeconfig(kubeconfig, {
      ...(context !== undefined && { context }),
      given,
      tokenSetting: named("token"),
      contextSetting: named("context"),
      ...(onOrigin && { onOrigin }),
    });
  } catch (error) {
    if (error instanceof KubeconfigError) throw new Error(`${named("kubeconfig")}: ${error.message}`);
    throw error;
  }
}

/** The address, or an error naming the setting and the fix. */
function checkedBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl, named("token"));
  if (problem !== undefined) throw new Error(`${named("baseUrl")} ${problem}`);
  return baseUrl;
}

/** The settings that are numbers. */
type NumberName = "requestTimeoutSeconds" | "maxRetries";

/** A number setting's value (its default when unset), or an error naming the setting and what it takes. */
function numberSetting(
  name: NumberName,
  text: string | undefined,
  takes: string,
  valid: (value: number) => boolean,
): number {
  const setting = SETTINGS[name];
  const value = text === undefined ? setting.default : Number(text);
  if (!valid(value)) {
    throw new Error(`${setting.config} must be ${takes}, for example ${setting.default} (the default)`);
  }
  return value;
}

function timeoutSeconds(text: string | undefined): number {
  return numberSetting("requestTimeoutSeconds", text, "a positive number of seconds", (seconds) => {
    return Number.isFinite(seconds) && seconds > 0;
  });
}

function retryCount(text: string | undefined): number {
  const takes = `a whole number from 0 to ${MAX_RETRIES_LIMIT}`;
  return numberSetting("maxRetries", text, takes, (count) => {
    return Number.isInteger(count) && count >= 0 && count <= MAX_RETRIES_LIMIT;
  });
}

export function resolveSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): Settings {
  return resolveAccess(config, env).settings;
}

/** The settings, and where the address and credentials in them come from (for messages: `access.ts`). */
export function resolveAccess(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): { settings: Settings; origins: AccessOrigins } {
  const read = reader(config, env);
  const origin = (name: SettingName) => settingOrigin(config, name, env);
  const explicitUrl = read("baseUrl");
  if (explicitUrl === undefined && read("kubeconfig") === undefined) {
    throw new Error(`no API address configured: ${SET_ADDRESS_HINT}`);
  }
  if (explicitUrl !== undefined) checkedBaseUrl(explicitUrl);
  const timeoutMs = timeoutSeconds(read("requestTimeoutSeconds")) * 1000;
  const maxRetries = retryCount(read("maxRetries"));
  const caFile = read("caCertificateFile");
  const explicitCa =
    read("caCertificate") ?? (caFile === undefined ? undefined : readFileSync(caFile, "utf8"));
  const explicitToken = read("token");
  let kubeconfigOrigin: KubeconfigOrigin | undefined;
  const fromKubeconfig = kubeconfigCredentials(
    read,
    {
      baseUrl: explicitUrl !== undefined,
      token: explicitToken !== undefined,
      ca: explicitCa !== undefined,
    },
    (chosen) => {
      kubeconfigOrigin = chosen;
    },
  );
  // The kubeconfig's server is checked as it is read; with neither, the error above was thrown.
  const baseUrl = (explicitUrl ?? fromKubeconfig.baseUrl) as string;
  const token = explicitToken ?? fromKubeconfig.token;
  const ca = explicitCa ?? fromKubeconfig.ca;
  const { cert, key, insecureSkipTlsVerify } = fromKubeconfig;
  const settings = {
    baseUrl,
    timeoutMs,
    maxRetries,
    ...(token !== undefined && { token }),
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && key !== undefined && { cert, key }),
    ...(insecureSkipTlsVerify === true && { insecureSkipTlsVerify }),
  };
  const explicitCaOrigin = origin("caCertificate") ?? origin("caCertificateFile");
  const origins: AccessOrigins = {
    baseUrl: explicitUrl !== undefined ? (origin("baseUrl") ?? "config") : "kubeconfig",
    address: new URL(baseUrl).origin,
    credentials:
      explicitToken !== undefined
        ? (origin("token") ?? "config")
        : fromKubeconfig.token !== undefined || fromKubeconfig.cert !== undefined
          ? "kubeconfig"
          : "none",
    ca: explicitCa !== undefined ? (explicitCaOrigin ?? "config") : fromKubeconfig.ca ? "kubeconfig" : "none",
    ...(kubeconfigOrigin !== undefined && {
      kubeconfig: {
        ...kubeconfigOrigin,
        fileFrom: origin("kubeconfig") ?? "config",
        contextFrom: origin("context"),
      },
    }),
  };
  return { settings, origins };
}

/** One setting whose value cannot be used, with the message the provider would fail with. */
export interface SettingProblem {
  name: SettingName;
  message: string;
}

/**
 * What is wrong with the settings, without calling anything or reading files: the native plugin's
 * CheckConfig reports it before any resource is touched. No address is not a problem here: a preview of new
 * objects needs none, and the first API call says so.
 */
export function settingProblems(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): SettingProblem[] {
  const read = reader(config, env);
  const checks: [SettingName, () => unknown][] = [
    ["baseUrl", () => read("baseUrl") !== undefined && checkedBaseUrl(read("baseUrl") as string)],
    ["context", () => checkedContext(read("context"), read("kubeconfig"))],
    ["requestTimeoutSeconds", () => timeoutSeconds(read("requestTimeoutSeconds"))],
    ["maxRetries", () => retryCount(read("maxRetries"))],
    ...SWITCHES.map((name): [SettingName, () => unknown] => [name, () => booleanSetting(config, name, env)]),
  ];
  return checks.flatMap(([name, check]) => {
    try {
      check();
      return [];
    } catch (error) {
      return [{ name, message: error instanceof Error ? error.message : String(error) }];
    }
  });
}
