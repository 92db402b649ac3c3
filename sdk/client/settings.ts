/**
 * Every user-facing setting of the Pulumi provider, declared once as data: its stack config key, its
 * environment variable, which of the two wins, its default, one line a user reads, and whether it is secret.
 * `provider/settings.ts` reads stack config and environment with it, `createClient` takes its default request
 * timeout and base-URL check from here, and `npm run generate` renders the configuration table of
 * docs/configuration.md from it.
 */

import { closest } from "../shared/closest-name";

export interface SettingInfo {
  /** Stack config key, e.g. `exampledev:baseUrl`. */
  readonly config: string;
  /** Environment variable read when the config key is empty, or first when `precedence` is "environment". */
  readonly env: string;
  /**
   * Which source wins when both are set. The environment wins for the API's address and token (and the
   * kubeconfig and context that give them):
   * `pulumi destroy` and `pulumi refresh` hand the provider the config stored in state at the last update,
   * so the variables are how they reach an API that moved, or use a token that was rotated.
   */
  readonly precedence: "config" | "environment";
  /** The value used when neither source sets one; absent when there is none. */
  readonly default?: number | boolean;
  /**
   * A switch whose default turns off while another switch is on (`serverDryRun` while
   * `deferValidationToPolicies`): its default is then not a constant, so the package schema declares none
   * and the provider decides.
   */
  readonly defaultOffWith?: string;
  /** One line for users: what the setting does and what it accepts. */
  readonly description: string;
  /** Set it with `pulumi config set --secret`; it never appears in messages. */
  readonly secret: boolean;
}

/** The most retries `maxRetries` may ask for: with backoff up to 8 s a retry, 20 are minutes already. */
export const MAX_RETRIES_LIMIT = 20;

export const SETTINGS = {
  baseUrl: {
    config: "exampledev:baseUrl",
    env: "EXAMPLEDEV_BASE_URL",
    precedence: "environment",
    description:
      'The API\'s address, such as "http://127.0.0.1:8080" or "https://api.example.dev" (a path prefix is kept); required once the provider calls the API.',
    secret: false,
  },
  token: {
    config: "exampledev:token",
    env: "EXAMPLEDEV_TOKEN",
    precedence: "environment",
    description: "Bearer token sent to the API with every request.",
    secret: true,
  },
  caCertificate: {
    config: "exampledev:caCertificate",
    env: "EXAMPLEDEV_CA_CERTIFICATE",
    precedence: "config",
    description: "PEM certificate of the authority that signed the API's https certificate.",
    secret: false,
  },
  caCertificateFile: {
    config: "exampledev:caCertificateFile",
    env: "EXAMPLEDEV_CA_CERTIFICATE_FILE",
    precedence: "config",
    description: "Path of a PEM file with that certificate, read when caCertificate is not set.",
    secret: false,
  },
  kubeconfig: {
    config: "exampledev:kubeconfig",
    env: "EXAMPLEDEV_KUBECONFIG",
    precedence: "environment",
    description:
      "Path of a kubeconfig file, read as kubectl reads it: the context's cluster (server, certificate authority, insecure-skip-tls-verify) and user (token or tokenFile, client certificate and key); baseUrl, token and caCertificate(File), when set, win over it field by field.",
    secret: false,
  },
  context: {
    config: "exampledev:context",
    env: "EXAMPLEDEV_CONTEXT",
    precedence: "environment",
    description: "The kubeconfig context to use instead of the file's current-context.",
    secret: false,
  },
  requestTimeoutSeconds: {
    config: "exampledev:requestTimeoutSeconds",
    env: "EXAMPLEDEV_REQUEST_TIMEOUT_SECONDS",
    precedence: "config",
    default: 30,
    description:
      "Deadline of one request attempt in seconds, from connecting to the last byte of the answer; a positive number.",
    secret: false,
  },
  maxRetries: {
    config: "exampledev:maxRetries",
    env: "EXAMPLEDEV_MAX_RETRIES",
    precedence: "config",
    default: 3,
    description: `How many times a failed request is sent again, with backoff, when sending it again is safe (a refused connection, 429/502/503/504, a lost answer to a read or to a create the provider recognises); a whole number from 0 to ${MAX_RETRIES_LIMIT}. Raise it on a flaky network.`,
    secret: false,
  },
  deferValidationToPolicies: {
    config: "exampledev:deferValidationToPolicies",
    env: "EXAMPLEDEV_DEFER_VALIDATION_TO_POLICIES",
    precedence: "config",
    default: false,
    description:
      '"true" lets check leave spec errors to the policy pack, so one preview lists every violation of the stack; the API still refuses invalid objects at "pulumi up".',
    secret: false,
  },
  serverSideApply: {
    config: "exampledev:serverSideApply",
    env: "EXAMPLEDEV_SERVER_SIDE_APPLY",
    precedence: "config",
    default: false,
    description:
      '"true" makes create and update server-side applies by the field manager "pulumi-exampledev": fields other managers set are left alone and are not drift, and changing a field another manager owns fails naming that manager (see serverSideApplyForce).',
    secret: false,
  },
  serverSideApplyForce: {
    config: "exampledev:serverSideApplyForce",
    env: "EXAMPLEDEV_SERVER_SIDE_APPLY_FORCE",
    precedence: "config",
    default: false,
    description:
      '"true" lets a server-side apply take over the fields the program declares that other managers own, instead of failing on the conflict.',
    secret: false,
  },
  serverDryRun: {
    config: "exampledev:serverDryRun",
    env: "EXAMPLEDEV_SERVER_DRY_RUN",
    precedence: "config",
    default: true,
    defaultOffWith: "deferValidationToPolicies",
    description:
      'Asks the API during preview (and up): whether it is reachable and takes the credentials, then each create and update with dryRun=All (nothing stored), so its refusals (an address or token to fix, validation, name taken, field conflicts) fail the preview, naming the setting to fix. On by default whenever an API address is set, off by default with deferValidationToPolicies (a pull-request check that lists every violation without credentials); "false" keeps previews fully offline.',
    secret: false,
  },
} as const satisfies Record<string, SettingInfo>;

export type SettingName = keyof typeof SETTINGS;

/** The per-attempt request timeout when none is configured, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = SETTINGS.requestTimeoutSeconds.default * 1000;

/**
 * What is wrong with an API base URL, worded to follow the setting's name ("is not a URL: …"), or undefined
 * when it can be used. Refused: what is not an http(s) URL, credentials (they would leak into messages; the
 * token has its own setting, named by `tokenSetting`), and a query or fragment (they would be dropped).
 * The URL itself is never repeated, since it may carry a secret.
 */
export function baseUrlProblem(baseUrl: string, tokenSetting: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "is not a URL: give one like https://api.example.dev";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `must use http or https, not ${url.protocol.replace(":", "")}`;
  }
  if (url.username || url.password) {
    return `must not contain credentials: pass the API token as ${tokenSetting}`;
  }
  if (url.search || url.hash) {
    return "must not have a query or fragment: give the server's address only";
  }
  return undefined;
}

/** How to give the provider an API address, for the messages that find none. */
export const SET_ADDRESS_HINT =
  `set it with \`pulumi config set ${SETTINGS.baseUrl.config} http://127.0.0.1:8080\` or the ` +
  `${SETTINGS.baseUrl.env} environment variable, or point ${SETTINGS.kubeconfig.config} at a kubeconfig`;

/** Whether an API address is given at all (valid or not): a base URL or a kubeconfig, by config or variable. */
export function addressGiven(config: (key: string) => string | undefined, env: NodeJS.ProcessEnv): boolean {
  return (["baseUrl", "kubeconfig"] as const).some(
    (name) => !!config(SETTINGS[name].config) || !!env[SETTINGS[name].env],
  );
}

/**
 * What to say about a stack config key in the provider's namespace that names no setting (a misspelling is
 * otherwise ignored in silence): the setting it most likely meant, else every setting's key.
 */
export function unknownSettingMessage(key: string): string {
  const keys = Object.values(SETTINGS).map((setting) => setting.config);
  const meant = closest(key, keys);
  const advice = meant !== undefined ? `did you mean ${meant}?` : `the settings are ${keys.join(", ")}`;
  return `${key} is not a setting of @exampledev/pulumi and is ignored: ${advice}`;
}
