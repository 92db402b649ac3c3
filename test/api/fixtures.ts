import type { KindName } from "../../sdk/schema";

export const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;
const REPO = "registry.example.dev/team/app";
const RUNTIME = { compatibilityDate: "2024-09-01" };

/** Secret values planted in fixtures; none may ever appear in a response or a log line. */
export const SECRETS = {
  apiKey: "alpha-logs-key-7f3a9c",
  apiKeyData: "YmV0YS10cmFjZXMta2V5LTll",
  password: "registry-password-51d2",
  accessToken: "registry-access-token-c0ffee",
  refreshToken: "registry-refresh-token-beef42",
} as const;

/** A minimal valid spec per kind. */
export const VALID_SPECS: Record<KindName, Record<string, unknown>> = {
  Proxy: {},
  Service: { source: { oci: { repo: REPO, digest: DIGEST } }, template: { spec: { runtime: RUNTIME } } },
  ServiceRevision: { bundle: { repo: REPO, digest: DIGEST }, runtime: RUNTIME },
};

/** A valid spec per kind carrying every kind of secret it can hold. */
export const SECRET_SPECS: Record<KindName, Record<string, unknown>> = {
  Proxy: {
    telemetry: {
      thirdPartySinks: {
        vendorAlphaLogs: { key: SECRETS.apiKey },
        vendorBetaTraces: { keyData: SECRETS.apiKeyData },
      },
    },
  },
  Service: {
    source: {
      oci: {
        repo: REPO,
        digest: DIGEST,
        credentials: { username: "robot", password: SECRETS.password, refreshToken: SECRETS.refreshToken },
      },
    },
    template: { spec: { runtime: RUNTIME } },
  },
  ServiceRevision: {
    bundle: { repo: REPO, digest: DIGEST, credentials: { accessToken: SECRETS.accessToken } },
    runtime: RUNTIME,
  },
};

/** A valid change to each kind's spec, for updates (a ServiceRevision's spec cannot change). */
export const SPEC_CHANGES: Record<Exclude<KindName, "ServiceRevision">, Record<string, unknown>> = {
  Proxy: { shutdown: { drainTimeout: "10s", minimumDrainTime: "20s" } },
  Service: { revisionHistoryLimit: 3 },
};

export const KINDS_UNDER_TEST: readonly KindName[] = ["Proxy", "Service", "ServiceRevision"];
