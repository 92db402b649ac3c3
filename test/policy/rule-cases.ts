import type { KindName } from "../../sdk/schema";
import { DIGEST, specWith } from "./fixtures";

/** A resource that breaks one rule, and exactly what that rule's policy reports for it. */
export interface FailingCase {
  kind: KindName;
  name: string;
  spec: Record<string, unknown>;
  messages: string[];
}

const GIT_SOURCE = {
  url: "https://git.example.dev/team/web.git",
  build: { output: { repo: "registry.example.dev/team/web" } },
  triggers: {},
};

/** One case per rule id of the schema's catalog; a test checks that none is missing. */
export const FAILING_CASES: Readonly<Record<string, FailingCase>> = {
  // Section 7 of the API spec.
  "egress-exclusive": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      template: { spec: { egress: { disabled: true, gatewayRef: "corp-egress" } } },
    }),
    messages: [
      'Service "web": spec.template.spec.egress.gatewayRef: must be empty while egress.disabled is true (all egress is denied); remove gatewayRef, or set disabled to false to route egress through that gateway',
    ],
  },
  "bundle-credentials-exclusive": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      source: {
        oci: {
          credentials: { username: "ci", passwordData: "registry-password" },
          credentialsRef: { group: "core", name: "registry", namespace: "ci" },
        },
      },
    }),
    messages: [
      'Service "web": spec.source.oci.credentialsRef: only one of credentials or credentialsRef may be set; remove credentialsRef to use the inline credentials, or remove credentials to use the referenced ones',
    ],
  },
  "drain-minimum": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", { shutdown: { drainTimeout: "60s", minimumDrainTime: "10s" } }),
    messages: [
      'Proxy "edge": spec.shutdown.minimumDrainTime: "10s" is less than drainTimeout "60s"; set minimumDrainTime to "60s" or more (it defaults to "30s" when unset), or lower drainTimeout',
    ],
  },
  "source-exactly-one": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { source: { git: GIT_SOURCE } }),
    messages: [
      'Service "web": spec.source: oci and git are both set; keep exactly one: oci for a pushed bundle, git for a build pipeline',
    ],
  },
  "service-required-fields": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { template: { spec: { runtime: null } } }),
    messages: [
      'Service "web": spec.template.spec.runtime.compatibilityDate: is required; set it to a date such as "2026-01-01" (the worker runtime\'s compatibility date)',
    ],
  },
  "revision-bundle-required": {
    kind: "ServiceRevision",
    name: "web-rev",
    spec: specWith("ServiceRevision", { bundle: null }),
    messages: ['ServiceRevision "web-rev": spec.bundle: is required; set it to an object'],
  },
  "revision-bundle-digest": {
    kind: "ServiceRevision",
    name: "web-rev",
    spec: specWith("ServiceRevision", { bundle: { digest: null, tag: "v1" } }),
    messages: [
      'ServiceRevision "web-rev": spec.bundle.digest: is required: a ServiceRevision runs an exact artifact; set digest to "sha256:<64 hex>" of the pushed bundle',
    ],
  },
  "build-output-unpinned": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      source: {
        oci: null,
        git: { ...GIT_SOURCE, build: { output: { repo: "registry.example.dev/team/web", digest: DIGEST } } },
      },
    }),
    messages: [
      'Service "web": spec.source.git.build.output.digest: cannot be set on a build output: each build pushes a new manifest, and its digest lands in status.lastBuild.digest and the minted revision\'s spec.bundle; remove digest (set tag to name what builds push)',
    ],
  },

  // Structure: fields, types, enumerations, integer ranges.
  "unknown-field": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", { shutdown: { drainTimout: "45s" } }),
    messages: [
      'Proxy "edge": spec.shutdown.drainTimout: is not a field of ShutdownConfig; remove it or fix the spelling (did you mean "drainTimeout"?)',
    ],
  },
  "required-field": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", { telemetry: { tracing: { enabled: null } } }),
    messages: [
      'Proxy "edge": spec.telemetry.tracing.enabled: is required; set it to a boolean (true or false)',
    ],
  },
  "field-type": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { revisionHistoryLimit: "ten" }),
    messages: ['Service "web": spec.revisionHistoryLimit: must be a number, not a string'],
  },
  "enum-value": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { template: { spec: { backend: { protocol: "http3", port: null } } } }),
    messages: [
      'Service "web": spec.template.spec.backend.protocol: "http3" is not supported; use one of "http1", "http2", "tcp", "udp"',
    ],
  },
  "int32-range": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { revisionHistoryLimit: 3_000_000_000 }),
    messages: [
      'Service "web": spec.revisionHistoryLimit: 3000000000 is out of range; use an integer from -2147483648 to 2147483647',
    ],
  },

  // Field rules of section 2 and DESIGN.md.
  "backend-port-range": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { template: { spec: { backend: { port: 70_000 } } } }),
    messages: [
      'Service "web": spec.template.spec.backend.port: 70000 is not a port number; use a port from 1 to 65535',
    ],
  },
  "revision-history-range": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { revisionHistoryLimit: -1 }),
    messages: [
      'Service "web": spec.revisionHistoryLimit: -1 is negative; set a count of revisions to keep, 0 or more (default 10)',
    ],
  },
  "duration-format": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", { shutdown: { drainTimeout: "30 seconds" } }),
    messages: [
      'Proxy "edge": spec.shutdown.drainTimeout: "30 seconds" is not a Go duration; write numbers with units, such as "30s", "1m30s", "250ms" (units ns, us, ms, s, m, h)',
    ],
  },
  "digest-format": {
    kind: "ServiceRevision",
    name: "web-rev",
    spec: specWith("ServiceRevision", { bundle: { digest: "sha256:abc123" } }),
    messages: [
      'ServiceRevision "web-rev": spec.bundle.digest: "sha256:abc123" is not a digest; use "sha256:" followed by 64 lowercase hex digits, as the registry reports on push',
    ],
  },
  "repo-format": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { source: { oci: { repo: "registry.example.dev/team/web:v1" } } }),
    messages: [
      'Service "web": spec.source.oci.repo: "registry.example.dev/team/web:v1" is not an OCI repository; use "<registry_host>/<path>" such as "registry.example.dev/team/app" or "127.0.0.1:5000/team/app" (lowercase path, no tag or digest: set those in tag and digest)',
    ],
  },
  "tag-format": {
    kind: "ServiceRevision",
    name: "web-rev",
    spec: specWith("ServiceRevision", { bundle: { tag: "-v1" } }),
    messages: [
      'ServiceRevision "web-rev": spec.bundle.tag: "-v1" is not an OCI tag; use letters, digits, "_", "." and "-" (not first), at most 128 characters, such as "v1.2.0"',
    ],
  },
  "dns1123-name": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { liveRevision: "Web_Rev" }),
    messages: [
      'Service "web": spec.liveRevision: "Web_Rev" is not a valid object name; use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit (at most 253 characters), or leave it empty for the default',
    ],
  },
  "otel-endpoint-url": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", {
      telemetry: { thirdPartySinks: { openTelemetrySinks: [{ endpoint: "otel.example.dev:4318" }] } },
    }),
    messages: [
      'Proxy "edge": spec.telemetry.thirdPartySinks.openTelemetrySinks[0].endpoint: "otel.example.dev:4318" is not an http(s) URL; use the collector\'s OTLP/HTTP address such as "https://otel.example.dev:4318"',
    ],
  },
  "git-file-url": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      source: { oci: null, git: { ...GIT_SOURCE, url: "file://git-host/srv/app.git" } },
    }),
    messages: [
      'Service "web": spec.source.git.url: "file://git-host/srv/app.git" names the host "git-host", but a file:// URL reads this machine\'s disk: write file:///srv/app.git or file://localhost/srv/app.git, or an http(s):// or git:// URL to reach another host',
    ],
  },
  "quantity-format": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { template: { spec: { runtime: { limits: { memory: "128 MB" } } } } }),
    messages: [
      'Service "web": spec.template.spec.runtime.limits.memory: "128 MB" is not a quantity; use a form such as "128Mi", "1Gi" or a plain count of bytes',
    ],
  },
  "key-data-base64": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", {
      telemetry: { thirdPartySinks: { vendorAlphaLogs: { keyData: "sk live key!" } } },
    }),
    messages: [
      'Proxy "edge": spec.telemetry.thirdPartySinks.vendorAlphaLogs.keyData: the value (not shown: it is a secret) is not base64; write the key\'s bytes in base64 (letters, digits, "+" and "/", padded with "=" to a multiple of 4 characters), e.g. from `base64 -w0 key.bin`, or write a text key in key instead',
    ],
  },
  "backend-filter-exclusive": {
    kind: "ServiceRevision",
    name: "web-rev",
    spec: specWith("ServiceRevision", { backend: { protocol: "http1" }, filter: { phase: "request" } }),
    messages: [
      'ServiceRevision "web-rev": spec.filter: backend and filter are mutually exclusive; remove filter to run in backend mode, or remove backend to run as a filter',
    ],
  },
  "backend-port-required": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { template: { spec: { backend: { protocol: "udp", port: null } } } }),
    messages: [
      'Service "web": spec.template.spec.backend.port: is required for protocol "udp"; set the port the backend listens on (1-65535)',
    ],
  },
  "binding-type-match": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      template: {
        spec: { bindings: [{ name: "CACHE", type: "kv", secret: { store: "vault", key: "cache" } }] },
      },
    }),
    messages: [
      'Service "web": spec.template.spec.bindings[0].kv: is required for a binding of type "kv"; add its settings',
      'Service "web": spec.template.spec.bindings[0].secret: does not belong to a binding of type "kv"; remove it, or set type to "secret"',
    ],
  },
  "unique-names": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      template: {
        spec: {
          env: [
            { name: "MODE", value: "a" },
            { name: "MODE", value: "b" },
          ],
        },
      },
    }),
    messages: [
      'Service "web": spec.template.spec.env[1].name: "MODE" is already used by env[0]; names must be unique within env, so rename or remove one',
    ],
  },

  // Advisory by default (issue 7).
  "bundle-digest-pinned": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { source: { oci: { digest: null, tag: "v1.2.0" } } }),
    messages: [
      'Service "web": spec.source.oci.digest: is not set, so tag "v1.2.0" is resolved at minting time and a re-push changes what runs; pin the bundle with digest "sha256:<64 hex>" (the serving path is digest-addressed)',
    ],
  },
  "preview-ttl": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      source: { oci: null, git: { ...GIT_SOURCE, previews: { enabled: true } } },
    }),
    messages: [
      'Service "web": spec.source.git.previews.ttl: is not set, so preview Services (one per branch or pull request) are never deleted while idle, only when their branch is deleted or their pull request closed; set ttl, e.g. "72h"',
    ],
  },
  "pull-request-previews": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      source: { oci: null, git: { ...GIT_SOURCE, triggers: { onPullRequest: true } } },
    }),
    messages: [
      'Service "web": spec.source.git.triggers.onPullRequest: is true, but previews.enabled is not, so pull requests get no preview Service and this has no effect; set previews.enabled to true (with a ttl), or remove onPullRequest',
    ],
  },
  "build-command-pull-requests": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      source: {
        oci: null,
        git: {
          ...GIT_SOURCE,
          build: { ...GIT_SOURCE.build, command: ["npm", "run", "build"] },
          triggers: { onPullRequest: true },
          previews: { enabled: true, ttl: "72h" },
        },
      },
    }),
    messages: [
      'Service "web": spec.source.git.build.command: runs with triggers.onPullRequest, so each pull request\'s own version of the repository runs commands on the build machine, whoever opened it (the local server runs commands only when started with --build-commands); set onPullRequest to false, or remove command and commit the built output under rootDir',
    ],
  },
  "password-plaintext": {
    kind: "ServiceRevision",
    name: "web-rev",
    spec: specWith("ServiceRevision", {
      bundle: { credentials: { username: "ci", password: "plain-password" } },
    }),
    messages: [
      'ServiceRevision "web-rev": spec.bundle.credentials.password: is write-only plain text and never read back; set passwordData (the raw password) instead, as a secret',
    ],
  },
  "password-precedence": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", {
      source: {
        oci: { credentials: { username: "ci", password: "plain-password", passwordData: "raw-password" } },
      },
    }),
    messages: [
      'Service "web": spec.source.oci.credentials.password: is ignored because passwordData is also set and takes precedence; remove password',
    ],
  },
  "third-party-sinks-cloud-only": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", {
      provider: "onprem",
      telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "alpha-api-key" } } },
    }),
    messages: [
      'Proxy "edge": spec.telemetry.thirdPartySinks: has no effect for provider "onprem": third-party sinks work only on cloud proxies; remove it, or set provider to "cloud" (on your own proxies, export through otelCollectorConfig)',
    ],
  },
  "otel-collector-unmanaged-only": {
    kind: "Proxy",
    name: "edge",
    spec: specWith("Proxy", { telemetry: { otelCollectorConfig: { group: "core", name: "collector" } } }),
    messages: [
      'Proxy "edge": spec.telemetry.otelCollectorConfig: has no effect on a managed proxy (provider "cloud", the default): the platform runs its collector; remove it and use thirdPartySinks, or set provider to where you run the proxy',
    ],
  },
  "backend-port-ignored": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { template: { spec: { backend: { protocol: "http2" } } } }),
    messages: [
      'Service "web": spec.template.spec.backend.port: is ignored for protocol "http2" (only tcp and udp use a port); remove it',
    ],
  },
  "revision-history-minimum": {
    kind: "Service",
    name: "web",
    spec: specWith("Service", { revisionHistoryLimit: 1 }),
    messages: [
      'Service "web": spec.revisionHistoryLimit: 1 keeps no earlier revision to roll back to (liveRevision can only pin retained revisions); set 2 or more (default 10)',
    ],
  },
};
