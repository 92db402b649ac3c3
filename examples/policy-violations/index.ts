import { Proxy, Service, ServiceRevision } from "@exampledev/pulumi";
import type { ServiceConfigSpecInput, ServiceSourceInput } from "@exampledev/pulumi/schema";
import * as pulumi from "@pulumi/pulumi";

// One resource per policy of the pack, named after it. Each is valid except for one value, which breaks its
// policy's rule unless the stack is fixed. The breaking values are what a pull request might introduce.

const config = new pulumi.Config();
const fixed = config.getBoolean("fixed") ?? false;
const violate = config.getObject<string[]>("violate") ?? [];

/** Whether this stack breaks the rule of `policy`: the listed policies, else every one unless fixed. */
function breaks(policy: string): boolean {
  return violate.length === 0 ? !fixed : violate.includes(policy);
}

/** `broken` where the stack breaks `policy`, else `valid`. Broken values may not even type-check. */
function pick<T>(policy: string, valid: T, broken: unknown): T {
  return (breaks(policy) ? broken : valid) as T;
}

const REPO = "registry.example.dev/team/web";
const DIGEST = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
const BUNDLE = { repo: REPO, digest: DIGEST };
const RUNTIME = { compatibilityDate: "2026-01-01" };
const OTEL_ENDPOINT = "https://otel.example.dev:4318";

/** A Service named after `policy`, from a digest-pinned bundle; the parts given replace the defaults. */
function service(
  policy: string,
  parts: {
    source?: ServiceSourceInput;
    config?: Partial<ServiceConfigSpecInput>;
    liveRevision?: string;
    revisionHistoryLimit?: number;
    metadata?: { name: string };
  },
): Service {
  const { source = { oci: BUNDLE }, config: serving = {}, metadata, ...rest } = parts;
  return new Service(policy, {
    ...(metadata && { metadata }),
    spec: { source, template: { spec: { runtime: RUNTIME, ...serving } }, ...rest },
  });
}

// Section 7 of the API spec.
service("egress-exclusive", {
  config: { egress: { disabled: pick("egress-exclusive", false, true), gatewayRef: "corp-egress" } },
});
service("bundle-credentials-exclusive", {
  source: {
    oci: {
      ...BUNDLE,
      credentialsRef: { group: "core.example.dev", name: "registry", namespace: "ci" },
      credentials: pick("bundle-credentials-exclusive", undefined, {
        username: "ci",
        passwordData: "example-password",
      }),
    },
  },
});
new Proxy("drain-minimum", {
  spec: { shutdown: { drainTimeout: "60s", minimumDrainTime: pick("drain-minimum", "60s", "10s") } },
});
service("source-exactly-one", { source: pick("source-exactly-one", { oci: BUNDLE }, {}) });
// Broken: no runtime at all, so no runtime.compatibilityDate (every Service needs one).
service("service-required-fields", {
  config: { runtime: pick("service-required-fields", RUNTIME, undefined) },
});
new ServiceRevision("revision-bundle-required", {
  spec: pick("revision-bundle-required", { bundle: BUNDLE, runtime: RUNTIME }, { runtime: RUNTIME }),
});
new ServiceRevision("revision-bundle-digest", {
  spec: { bundle: pick("revision-bundle-digest", BUNDLE, { repo: REPO, tag: "v1.2.0" }), runtime: RUNTIME },
});

// Structure: fields, types, allowed values, integer ranges.
new Proxy("unknown-field", {
  spec: { shutdown: pick("unknown-field", { drainTimeout: "30s" }, { drainTimout: "30s" }) },
});
new Proxy("required-field", {
  spec: { telemetry: { tracing: pick("required-field", { enabled: true }, {}) } },
});
service("field-type", { revisionHistoryLimit: pick("field-type", 10, "ten") });
service("enum-value", { config: { backend: { protocol: pick("enum-value", "http2", "http3") } } });
service("int32-range", { revisionHistoryLimit: pick("int32-range", 10, 3_000_000_000) });

// Field rules of the spec's section 2.
service("backend-port-range", {
  config: { backend: { protocol: "tcp", port: pick("backend-port-range", 8080, 70_000) } },
});
service("revision-history-range", { revisionHistoryLimit: pick("revision-history-range", 10, -1) });
new Proxy("duration-format", {
  spec: { shutdown: { drainTimeout: pick("duration-format", "30s", "30 seconds") } },
});
service("digest-format", {
  source: { oci: { repo: REPO, digest: pick("digest-format", DIGEST, "sha256:abc123") } },
});
service("repo-format", {
  source: { oci: { repo: pick("repo-format", REPO, `${REPO}:v1.2.0`), digest: DIGEST } },
});
service("tag-format", { source: { oci: { ...BUNDLE, tag: pick("tag-format", "v1.2.0", "-v1.2.0") } } });
service("dns1123-name", {
  config: { egress: { gatewayRef: pick("dns1123-name", "corp-egress", "Corp_Egress") } },
});
new Proxy("otel-endpoint-url", {
  spec: {
    telemetry: {
      thirdPartySinks: {
        openTelemetrySinks: [{ endpoint: pick("otel-endpoint-url", OTEL_ENDPOINT, "otel.example.dev:4318") }],
      },
    },
  },
});
new Proxy("key-data-base64", {
  spec: {
    telemetry: {
      thirdPartySinks: {
        vendorAlphaLogs: { keyData: pick("key-data-base64", "c2stbGl2ZS1rZXk=", "sk live key!") },
      },
    },
  },
});
service("quantity-format", {
  config: { runtime: { ...RUNTIME, limits: { memory: pick("quantity-format", "128Mi", "128 MB") } } },
});
service("backend-filter-exclusive", {
  config: {
    backend: pick("backend-filter-exclusive", undefined, { protocol: "http1" }),
    filter: { phase: "request" },
  },
});
service("backend-port-required", {
  config: { backend: { protocol: "udp", port: pick("backend-port-required", 5353, undefined) } },
});
service("binding-type-match", {
  config: {
    bindings: [
      pick(
        "binding-type-match",
        { name: "CACHE", type: "kv", kv: { namespace: "cache" } },
        { name: "CACHE", type: "kv", secret: { store: "vault", key: "cache" } },
      ),
    ],
  },
});
service("unique-names", {
  config: {
    env: [
      { name: "MODE", value: "production" },
      { name: pick("unique-names", "LEVEL", "MODE"), value: "debug" },
    ],
  },
});

// Git sources: the build output is where builds push (API-SPEC section 2.2).
const GIT = { url: "https://git.example.dev/team/web.git", triggers: {} };
service("build-output-unpinned", {
  source: {
    git: { ...GIT, build: { output: pick("build-output-unpinned", { repo: REPO }, BUNDLE) } },
  },
});
// A file:// URL names a path on the server's machine: a host in it is a mistake.
service("git-file-url", {
  source: {
    git: {
      ...GIT,
      url: pick("git-file-url", "file:///srv/git/web.git", "file://git.example.dev/team/web.git"),
      build: { output: { repo: REPO } },
    },
  },
});

// Across resources (stack policies): two Services that would manage one API object.
service("unique-object-names", { metadata: { name: "shared-web" } });
service("unique-object-names-twin", {
  metadata: { name: pick("unique-object-names", "twin-web", "shared-web") },
});

// Advisory by default: these warn, and do not fail the preview.
service("bundle-digest-pinned", {
  source: { oci: pick("bundle-digest-pinned", BUNDLE, { repo: REPO, tag: "v1.2.0" }) },
});
service("preview-ttl", {
  source: {
    git: {
      ...GIT,
      build: { output: { repo: REPO } },
      previews: { enabled: true, ttl: pick("preview-ttl", "72h", undefined) },
    },
  },
});
service("pull-request-previews", {
  source: {
    git: {
      ...GIT,
      build: { output: { repo: REPO } },
      triggers: { onPullRequest: true },
      previews: { enabled: pick("pull-request-previews", true, false), ttl: "72h" },
    },
  },
});
service("build-command-pull-requests", {
  source: {
    git: {
      ...GIT,
      build: { output: { repo: REPO }, command: ["npm", "run", "build"] },
      triggers: { onPullRequest: pick("build-command-pull-requests", false, true) },
      previews: { enabled: true, ttl: "72h" },
    },
  },
});
service("password-plaintext", {
  source: {
    oci: {
      ...BUNDLE,
      credentials: pick(
        "password-plaintext",
        { username: "ci", passwordData: "example-password" },
        { username: "ci", password: "example-password" },
      ),
    },
  },
});
service("password-precedence", {
  source: {
    oci: {
      ...BUNDLE,
      credentials: {
        username: "ci",
        passwordData: "example-password",
        password: pick("password-precedence", undefined, "example-password"),
      },
    },
  },
});
new Proxy("third-party-sinks-cloud-only", {
  spec: {
    provider: pick("third-party-sinks-cloud-only", "cloud", "on-premises"),
    telemetry: { thirdPartySinks: { openTelemetrySinks: [{ endpoint: OTEL_ENDPOINT }] } },
  },
});
new Proxy("otel-collector-unmanaged-only", {
  spec: {
    provider: pick("otel-collector-unmanaged-only", "on-premises", "cloud"),
    telemetry: { otelCollectorConfig: { group: "core.example.dev", name: "otel-collector" } },
  },
});
service("backend-port-ignored", {
  config: { backend: { protocol: "http2", port: pick("backend-port-ignored", undefined, 8080) } },
});
service("revision-history-minimum", { revisionHistoryLimit: pick("revision-history-minimum", 10, 1) });
new ServiceRevision("pinned-revision", {
  metadata: { name: "pinned-revision" },
  spec: { bundle: BUNDLE, runtime: RUNTIME },
});
service("live-revision-managed", {
  liveRevision: pick("live-revision-managed", "pinned-revision", "missing-revision"),
});
