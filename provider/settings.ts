import { readFileSync } from "node:fs";

/** Where and how the provider reaches the API; read from stack config, then EXAMPLEDEV_* variables. */
export interface Settings {
  baseUrl: string;
  token?: string;
  ca?: string;
  timeoutMs: number;
}

/** The stack config keys the provider reads, with the environment variable each falls back to. */
export const SETTING_KEYS = {
  baseUrl: { config: "exampledev:baseUrl", env: "EXAMPLEDEV_BASE_URL" },
  token: { config: "exampledev:token", env: "EXAMPLEDEV_TOKEN" },
  caCertificate: { config: "exampledev:caCertificate", env: "EXAMPLEDEV_CA_CERTIFICATE" },
  caCertificateFile: { config: "exampledev:caCertificateFile", env: "EXAMPLEDEV_CA_CERTIFICATE_FILE" },
  requestTimeoutSeconds: { config: "exampledev:requestTimeoutSeconds", env: "EXAMPLEDEV_REQUEST_TIMEOUT_SECONDS" },
} as const;

const DEFAULT_TIMEOUT_SECONDS = 30;

interface ConfigSource {
  get(key: string): string | undefined;
}

export function resolveSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): Settings {
  const read = (key: keyof typeof SETTING_KEYS) => {
    const { config: configKey, env: envName } = SETTING_KEYS[key];
    const value = config.get(configKey) ?? env[envName];
    return value === "" ? undefined : value;
  };
  const baseUrl = read("baseUrl");
  if (baseUrl === undefined) {
    throw new Error(
      `no API address configured: set it with \`pulumi config set ${SETTING_KEYS.baseUrl.config} http://127.0.0.1:8080\` ` +
        `or the ${SETTING_KEYS.baseUrl.env} environment variable`,
    );
  }
  const timeoutText = read("requestTimeoutSeconds");
  const timeoutSeconds = timeoutText === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(timeoutText);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new Error(`${SETTING_KEYS.requestTimeoutSeconds.config} must be a positive number of seconds, for example 30`);
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
