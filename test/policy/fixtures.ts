import { apply } from "json-merge-patch";
import { TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import type { KindName } from "../../sdk/schema";
import type { TestResource } from "./harness";

/** Specs of each kind that break no rule; cases derive from them so each breaks exactly one. */

export const DIGEST = `sha256:${"a".repeat(64)}`;
export const REPO = "registry.example.dev/team/web";

export const VALID_SPECS: Readonly<Record<KindName, Record<string, unknown>>> = {
  Proxy: {
    provider: "cloud",
    shutdown: { drainTimeout: "30s", minimumDrainTime: "45s" },
    telemetry: {
      tracing: { enabled: true },
      contentLogs: { requestBodyEnabled: false, responseBodyEnabled: false },
    },
  },
  Service: {
    revisionHistoryLimit: 10,
    source: { oci: { repo: REPO, digest: DIGEST } },
    template: {
      spec: {
        backend: { protocol: "tcp", port: 8080 },
        env: [{ name: "MODE", value: "production" }],
        runtime: { compatibilityDate: "2025-01-01", limits: { memory: "128Mi", cpuTime: "50ms" } },
      },
    },
  },
  ServiceRevision: {
    bundle: { repo: REPO, digest: DIGEST },
    runtime: { compatibilityDate: "2025-01-01" },
  },
};

/** The valid spec of `kind` with a JSON merge patch applied (null removes a field). */
export function specWith(kind: KindName, patch: Record<string, unknown>): Record<string, unknown> {
  return apply(structuredClone(VALID_SPECS[kind]), patch);
}

/** A resource of one of the SDK's kinds, with props shaped like the API object. */
export function exampleResource(
  kind: KindName,
  name: string,
  spec: unknown,
  metadata?: Record<string, unknown>,
): TestResource {
  return { type: TYPE_TOKENS[kind], name, props: metadata === undefined ? { spec } : { metadata, spec } };
}
