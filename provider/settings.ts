import { readFileSync } from "node:fs";

/** Where and how the provider reaches the API; read from stack config, then EXAMPLEDEV_* variables. */
export interface Settings {
  baseUrl: string;
  token?: string;
  ca?: string;
  timeoutMs: number;
}

/**
 * The stack config keys the provider reads, with the environment variable of each. The variable is a fallback,
 * except where `envFirst`: the API's address and token. `pulumi destroy` (and refresh) hand the provider the
 * config stored in state at the last update, so the variables are how a destroy reaches an API that moved or
 * a token that was rotated.
 */
export const SETTING_KEYS = {
  baseUrl: { config: "exampledev:baseUrl", env: "EXAMPLEDEV_BASE_URL", envFirst: true },
  token: { config: "exampledev:token", env: "EXAMPLEDEV_TOKEN", envFirst: true },
  caCertificate: { config: "exampledev:caCertificate", env: "EXAMPLEDEV_CA_CERTIFICATE" },
  caCertificateFile: { config: "exampledev:caCertificateFile", env: "EXAMPLEDEV_CA_CERTIFICATE_FILE" },
  requestTimeoutSeconds: {
    config: "exampledev:requestTimeoutSeconds",
    env: "EXAMPLEDEV_REQUEST_TIMEOUT_SECONDS",
  },
  deferValidationToPolicies: {
    config: "exampledev:deferValidationToPolicies",
    env: "EXAMPLEDEV_DEFER_VALIDATION_TO_POLICIES",
  },
} as const;

const DEFAULT_TIMEOUT_SECONDS = 30;

export interface ConfigSource {
  get(key: string): string | undefined;
}

function reader(config: ConfigSource, env: NodeJS.ProcessEnv) {
  return (key: keyof typeof SETTING_KEYS) => {
    const setting: { config: string; env: string; envFirst?: boolean } = SETTING_KEYS[key];
    const fromConfig = nonEmpty(config.get(setting.config));
    const fromEnv = nonEmpty(env[setting.env]);
    return setting.envFirst ? (fromEnv ?? fromConfig) : (fromConfig ?? fromEnv);
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
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
  const value = reader(config, env)("deferValidationToPolicies");
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new Error(`${SETTING_KEYS.deferValidationToPolicies.config} must be true or false, not "${value}"`);
}

export function resolveSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): Settings {
  const read = reader(config, env);
  const baseUrl = read("baseUrl");
  if (baseUrl === undefined) {
    throw new Error(
      `no API address configured: set it with \`pulumi config set ${SETTING_KEYS.baseUrl.config} http://127.0.0.1:8080\` ` +
        `or the ${SETTING_KEYS.baseUrl.env} environment variable`,
    );
  }
  checkBaseUrl(baseUrl);
  const timeoutText = read("requestTimeoutSeconds");
  const timeoutSeconds = timeoutText === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(timeoutText);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new Error(
      `${SETTING_KEYS.requestTimeoutSeconds.config} must be a positive number of seconds, for example 30`,
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

function checkBaseUrl(baseUrl: string): void {
  const { config, env } = SETTING_KEYS.baseUrl;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(
      `${config} (or ${env}) is not a URL: use the API's address, e.g. https://api.example.dev`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`${config} (or ${env}) must be an http:// or https:// address`);
  }
  if (url.username || url.password) {
    throw new Error(
      `${config} (or ${env}) must not carry credentials: set the token with exampledev:token instead`,
    );
  }
}
