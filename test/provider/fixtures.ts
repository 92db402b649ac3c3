// Specs as programs write them, for the provider tests: minimal ones, and ones carrying every kind of secret.
import type {
  ProxySpecInput,
  ServiceConfigSpecInput,
  ServiceRevisionSpecInput,
  ServiceSpecInput,
} from "../../sdk/schema";

/** A digest the controller pins without asking a registry. */
export const DIGEST = `sha256:${"5eed".repeat(16)}`;
export const RUNTIME = { compatibilityDate: "2026-01-01" };
/** A repository no test contacts: Services pinned to a digest and ServiceRevisions need no registry. */
export const REPO = "127.0.0.1:1/team/app";

/** Planted secret values: none may appear in an error message. */
export const SECRETS = {
  apiKey: "provider-api-key-3c91f0",
  apiKeyData: "cHJvdmlkZXIta2V5LWRhdGE=",
  password: "provider-registry-password-8d2e",
  accessToken: "provider-access-token-41aa",
  refreshToken: "provider-refresh-token-77b0",
  token: "provider-api-token-e5d9c1",
} as const;

/** A Proxy spec with API keys in its third-party sinks. */
export function proxyWithKeys(
  shutdown: ProxySpecInput["shutdown"] = { drainTimeout: "20s", minimumDrainTime: "40s" },
) {
  return {
    shutdown,
    telemetry: {
      thirdPartySinks: {
        vendorAlphaLogs: { key: SECRETS.apiKey },
        vendorBetaTraces: { keyData: SECRETS.apiKeyData },
      },
    },
  } satisfies ProxySpecInput;
}

/** A Service deploying `repo` pinned to a digest (no registry needed), greeting with `greeting`. */
export function digestService(
  repo: string,
  greeting = "hello",
  template: Partial<ServiceConfigSpecInput> = {},
) {
  return {
    source: { oci: { repo, digest: DIGEST } },
    template: { spec: { runtime: RUNTIME, env: [{ name: "GREETING", value: greeting }], ...template } },
  } satisfies ServiceSpecInput;
}

/** A Service deploying `repo:tag`, which the controller resolves in the registry. */
export function taggedService(repo: string, tag: string) {
  return {
    source: { oci: { repo, tag } },
    template: { spec: { runtime: RUNTIME } },
  } satisfies ServiceSpecInput;
}

/** A Service built from git, from a host outside the server's default `--git-allow`: never fetched nor minted. */
export function gitService() {
  return {
    source: {
      git: { url: "https://git.example.dev/team/app.git", build: { output: { repo: REPO } }, triggers: {} },
    },
    template: { spec: { runtime: RUNTIME } },
  } satisfies ServiceSpecInput;
}

/** A ServiceRevision whose bundle carries registry credentials (`password` is write-only on the API). */
export function revisionWithCredentials(repo: string) {
  return {
    runtime: RUNTIME,
    bundle: {
      repo,
      digest: DIGEST,
      credentials: { username: "robot", password: SECRETS.password, refreshToken: SECRETS.refreshToken },
    },
  } satisfies ServiceRevisionSpecInput;
}
