import type { ProxySpecInput, ServiceRevisionSpecInput, ServiceSpecInput } from "../../../sdk/schema";

/** Complete, valid specs that set every field of their kind (and raise no warnings). */

export const DIGEST = `sha256:${"ab12".repeat(16)}`;

export const cloudProxy: ProxySpecInput = {
  provider: "cloud",
  shutdown: { drainTimeout: "45s", minimumDrainTime: "1m" },
  telemetry: {
    accessLogs: { json: { route: "%ROUTE_NAME%", upstream: "%UPSTREAM_HOST%" } },
    contentLogs: { requestBodyEnabled: true, responseBodyEnabled: false },
    thirdPartySinks: {
      vendorAlphaLogs: { key: "alpha-logs-key" },
      vendorAlphaTraces: { keyData: "YWxwaGEtdHJhY2Vz" },
      vendorBetaLogs: { key: "beta-logs-key" },
      vendorBetaTraces: { key: "beta-traces-key" },
      openTelemetrySinks: [
        { endpoint: "https://otel.example.dev:4318", headers: { "x-team": "edge" }, compression: "gzip" },
      ],
    },
    tracing: { enabled: true, tags: { team: "edge" } },
  },
};

/** A proxy the user runs (any provider but "cloud") brings its own collector. */
export const selfManagedProxy: ProxySpecInput = {
  provider: "on-prem",
  shutdown: { drainTimeout: "10s", minimumDrainTime: "10s" },
  telemetry: { otelCollectorConfig: { group: "", name: "otel-collector-config" } },
};

export const ociService: ServiceSpecInput = {
  liveRevision: "checkout-0a1b2c3d4e",
  revisionHistoryLimit: 5,
  source: {
    oci: {
      repo: "127.0.0.1:5000/team/checkout",
      tag: "v1.4.0",
      digest: DIGEST,
      credentials: { username: "ci", passwordData: "hunter2", accessToken: "token", refreshToken: "refresh" },
    },
  },
  template: {
    metadata: { labels: { app: "checkout" }, annotations: { "example.dev/owner": "payments" } },
    spec: {
      backend: { protocol: "tcp", port: 8443 },
      bindings: [
        { name: "CACHE", type: "kv", kv: { namespace: "checkout-cache" } },
        { name: "STRIPE_KEY", type: "secret", secret: { store: "payments", key: "stripe" } },
        { name: "INVENTORY", type: "service", service: { serviceRef: "inventory" } },
      ],
      egress: { disabled: false, gatewayRef: "payments-egress" },
      env: [
        { name: "LOG_LEVEL", value: "info" },
        { name: "REGION", value: "eu-west" },
      ],
      runtime: {
        compatibilityDate: "2025-01-15",
        compatibilityFlags: ["nodejs_compat"],
        limits: { cpuTime: "50ms", memory: "128Mi" },
        timeout: "1m30s",
      },
    },
  },
};

export const gitService: ServiceSpecInput = {
  source: {
    git: {
      url: "https://git.example.dev/team/edge-filter.git",
      credentialsRef: { group: "core.example.dev", name: "git-credentials", namespace: "team" },
      previews: { enabled: true, ttl: "72h" },
      // Pull requests off: their builds would run the build command of whoever opened one (a warning).
      triggers: { onPullRequest: false, paths: ["src/**", "package.json"], productionBranch: "release" },
      build: {
        builder: "registry.example.dev/builders/node:22",
        command: ["npm", "run", "build"],
        env: [{ name: "NODE_ENV", value: "production" }],
        output: {
          repo: "registry.example.dev/team/edge-filter",
          credentialsRef: { group: "core.example.dev", name: "registry-push", namespace: "team" },
        },
        rootDir: "services/filter",
      },
    },
  },
  template: {
    spec: {
      filter: { phase: "response", failureMode: "failOpen" },
      egress: { disabled: true },
      runtime: { compatibilityDate: "2025-01-15" },
    },
  },
};

export const revision: ServiceRevisionSpecInput = {
  bundle: { repo: "registry.example.dev/team/checkout", tag: "v1.4.0", digest: DIGEST },
  backend: { protocol: "http2" },
  bindings: [{ name: "CACHE", type: "kv", kv: { namespace: "checkout-cache" } }],
  egress: { gatewayRef: "payments-egress" },
  env: [{ name: "LOG_LEVEL", value: "debug" }],
  runtime: { compatibilityDate: "2025-01-15", limits: { cpuTime: "10ms", memory: "64Mi" }, timeout: "5s" },
};

export const EXAMPLES = [
  { name: "a cloud Proxy", kind: "Proxy", spec: cloudProxy },
  { name: "a self-managed Proxy", kind: "Proxy", spec: selfManagedProxy },
  { name: "an OCI-sourced Service", kind: "Service", spec: ociService },
  { name: "a git-sourced Service", kind: "Service", spec: gitService },
  { name: "a ServiceRevision", kind: "ServiceRevision", spec: revision },
] as const;

/** A deep copy of `spec` with the value at `path` replaced (or removed when `value` is undefined). */
export function withValue<T>(spec: T, path: readonly (string | number)[], value: unknown): T {
  const copy = structuredClone(spec) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const segment of path.slice(0, -1)) {
    parent[segment] ??= {};
    parent = parent[segment] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1] as string | number;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy as T;
}

/** Every path of `value` that holds a value (leaves, objects and arrays alike). */
export function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => [[...prefix, index], ...pathsOf(item, [...prefix, index])]);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => [
      [...prefix, key],
      ...pathsOf(item, [...prefix, key]),
    ]);
  }
  return [];
}
