import { describe, expect, test } from "vitest";
import {
  type KindName,
  RULES,
  type Severity,
  UNKNOWN,
  validateSpec,
  validateUpdate,
} from "../../../sdk/schema";
import {
  cloudProxy,
  DIGEST,
  gitService,
  ociService,
  revision,
  selfManagedProxy,
  withValue,
} from "./examples";

type Path = readonly (string | number)[];

interface RuleCase {
  rule: string;
  name: string;
  kind: KindName;
  spec: unknown;
  /** The rule's violations, as [path, severity]; empty for a valid case. */
  expected: readonly (readonly [string, Severity])[];
  /** For rules about updates: the stored spec that `spec` replaces. */
  previous?: unknown;
}

const proxy = (path: Path, value: unknown) => withValue(cloudProxy, path, value);
const service = (path: Path, value: unknown) => withValue(ociService, path, value);
const git = (path: Path, value: unknown) => withValue(gitService, path, value);
const rev = (path: Path, value: unknown) => withValue(revision, path, value);
const config = ["template", "spec"] as const;
const oci = ["source", "oci"] as const;
const build = ["source", "git", "build"] as const;

function invalid(rule: string, name: string, kind: KindName, spec: unknown, ...paths: string[]): RuleCase {
  const severity = RULES.find((info) => info.id === rule)?.severity ?? "error";
  return { rule, name, kind, spec, expected: paths.map((path) => [path, severity] as const) };
}

function valid(rule: string, name: string, kind: KindName, spec: unknown): RuleCase {
  return { rule, name, kind, spec, expected: [] };
}

function update(item: RuleCase, previous: unknown): RuleCase {
  return { ...item, previous };
}

const CASES: RuleCase[] = [
  // Section 7
  invalid(
    "egress-exclusive",
    "disabled egress naming a gateway",
    "Service",
    service([...config, "egress"], { disabled: true, gatewayRef: "gw" }),
    "spec.template.spec.egress.gatewayRef",
  ),
  invalid(
    "egress-exclusive",
    "the same on a revision",
    "ServiceRevision",
    rev(["egress"], { disabled: true, gatewayRef: "gw" }),
    "spec.egress.gatewayRef",
  ),
  valid(
    "egress-exclusive",
    "disabled egress with an empty gatewayRef",
    "Service",
    service([...config, "egress"], { disabled: true, gatewayRef: "" }),
  ),
  valid("egress-exclusive", "enabled egress naming a gateway", "Service", ociService),

  invalid(
    "bundle-credentials-exclusive",
    "an oci source with both",
    "Service",
    service([...oci, "credentialsRef"], { group: "g", name: "n", namespace: "ns" }),
    "spec.source.oci.credentialsRef",
  ),
  invalid(
    "bundle-credentials-exclusive",
    "a build output with both",
    "Service",
    git([...build, "output", "credentials"], { username: "ci", passwordData: "pw" }),
    "spec.source.git.build.output.credentialsRef",
  ),
  invalid(
    "bundle-credentials-exclusive",
    "a revision bundle with both",
    "ServiceRevision",
    rev(["bundle"], {
      repo: "r.example.dev/a",
      digest: DIGEST,
      credentials: {},
      credentialsRef: { group: "g", name: "n", namespace: "ns" },
    }),
    "spec.bundle.credentialsRef",
  ),
  valid("bundle-credentials-exclusive", "only a credentialsRef", "Service", gitService),

  invalid(
    "drain-minimum",
    "minimumDrainTime below drainTimeout",
    "Proxy",
    proxy(["shutdown"], { drainTimeout: "1m", minimumDrainTime: "30s" }),
    "spec.shutdown.minimumDrainTime",
  ),
  invalid(
    "drain-minimum",
    "a drainTimeout above the 30s default minimum",
    "Proxy",
    proxy(["shutdown"], { drainTimeout: "2m" }),
    "spec.shutdown.minimumDrainTime",
  ),
  valid(
    "drain-minimum",
    "equal values written differently",
    "Proxy",
    proxy(["shutdown"], { drainTimeout: "1m30s", minimumDrainTime: "90s" }),
  ),
  valid("drain-minimum", "a longer minimum", "Proxy", cloudProxy),
  valid("drain-minimum", "both defaulted", "Proxy", proxy(["shutdown"], undefined)),

  invalid("source-exactly-one", "neither variant", "Service", service(["source"], {}), "spec.source"),
  invalid(
    "source-exactly-one",
    "both variants",
    "Service",
    service(["source", "git"], gitService.source.git),
    "spec.source",
  ),
  valid("source-exactly-one", "only oci", "Service", ociService),
  valid("source-exactly-one", "only git", "Service", gitService),

  invalid("service-required-fields", "no source", "Service", service(["source"], undefined), "spec.source"),
  invalid(
    "service-required-fields",
    "no template",
    "Service",
    service(["template"], undefined),
    "spec.template",
  ),
  invalid(
    "service-required-fields",
    "no template.spec",
    "Service",
    service(["template", "spec"], undefined),
    "spec.template.spec",
  ),
  invalid(
    "service-required-fields",
    "a runtime without compatibilityDate",
    "Service",
    service([...config, "runtime", "compatibilityDate"], undefined),
    "spec.template.spec.runtime.compatibilityDate",
  ),
  valid("service-required-fields", "a complete Service", "Service", ociService),
  invalid(
    "service-required-fields",
    "no runtime at all",
    "Service",
    service([...config, "runtime"], undefined),
    "spec.template.spec.runtime.compatibilityDate",
  ),
  invalid(
    "service-required-fields",
    "an empty template.spec",
    "Service",
    service([...config], {}),
    "spec.template.spec.runtime.compatibilityDate",
  ),
  valid(
    "service-required-fields",
    "a runtime with only compatibilityDate",
    "Service",
    service([...config, "runtime"], { compatibilityDate: "2026-01-01" }),
  ),
  valid(
    "service-required-fields",
    "a revision without runtime",
    "ServiceRevision",
    rev(["runtime"], undefined),
  ),

  invalid(
    "revision-bundle-required",
    "no bundle",
    "ServiceRevision",
    rev(["bundle"], undefined),
    "spec.bundle",
  ),
  valid("revision-bundle-required", "a bundle", "ServiceRevision", revision),

  invalid(
    "revision-bundle-digest",
    "a tag-only bundle",
    "ServiceRevision",
    rev(["bundle", "digest"], undefined),
    "spec.bundle.digest",
  ),
  valid("revision-bundle-digest", "a pinned bundle", "ServiceRevision", revision),

  // Structure
  invalid(
    "unknown-field",
    "a typo in the template",
    "Service",
    service([...config, "bakend"], {}),
    "spec.template.spec.bakend",
  ),
  invalid(
    "unknown-field",
    "a typo in shutdown",
    "Proxy",
    proxy(["shutdown", "drainTimout"], "10s"),
    "spec.shutdown.drainTimout",
  ),
  invalid(
    "unknown-field",
    "a typo in a list item",
    "ServiceRevision",
    rev(["bindings", 0, "nmae"], "X"),
    "spec.bindings[0].nmae",
  ),
  invalid(
    "unknown-field",
    "template metadata other than labels and annotations",
    "Service",
    service(["template", "metadata", "name"], "x"),
    "spec.template.metadata.name",
  ),
  valid(
    "unknown-field",
    "free-form maps take any key",
    "Proxy",
    proxy(["telemetry", "tracing", "tags", "anything"], "goes"),
  ),

  invalid(
    "required-field",
    "an env var without value",
    "Service",
    service([...config, "env", 0, "value"], undefined),
    "spec.template.spec.env[0].value",
  ),
  invalid(
    "required-field",
    "content logs without responseBodyEnabled",
    "Proxy",
    proxy(["telemetry", "contentLogs", "responseBodyEnabled"], undefined),
    "spec.telemetry.contentLogs.responseBodyEnabled",
  ),
  invalid(
    "required-field",
    "a binding without type",
    "ServiceRevision",
    rev(["bindings", 0, "type"], undefined),
    "spec.bindings[0].type",
  ),
  valid("required-field", "a revision without runtime", "ServiceRevision", rev(["runtime"], undefined)),
  invalid(
    "required-field",
    "a revision runtime without compatibilityDate",
    "ServiceRevision",
    rev(["runtime", "compatibilityDate"], undefined),
    "spec.runtime.compatibilityDate",
  ),
  invalid(
    "required-field",
    "an OpenTelemetry sink without endpoint",
    "Proxy",
    proxy(["telemetry", "thirdPartySinks", "openTelemetrySinks", 0, "endpoint"], undefined),
    "spec.telemetry.thirdPartySinks.openTelemetrySinks[0].endpoint",
  ),
  invalid(
    "required-field",
    "a git source without triggers",
    "Service",
    git(["source", "git", "triggers"], undefined),
    "spec.source.git.triggers",
  ),
  valid("required-field", "everything required present", "Service", gitService),

  invalid(
    "field-type",
    "a string count",
    "Service",
    service(["revisionHistoryLimit"], "10"),
    "spec.revisionHistoryLimit",
  ),
  invalid(
    "field-type",
    "a fractional count",
    "Service",
    service(["revisionHistoryLimit"], 1.5),
    "spec.revisionHistoryLimit",
  ),
  invalid(
    "field-type",
    "a string boolean",
    "Proxy",
    proxy(["telemetry", "tracing", "enabled"], "yes"),
    "spec.telemetry.tracing.enabled",
  ),
  invalid(
    "field-type",
    "env as an object",
    "ServiceRevision",
    rev(["env"], { LOG_LEVEL: "debug" }),
    "spec.env",
  ),
  invalid("field-type", "a spec that is not an object", "Proxy", "cloud", "spec"),
  valid("field-type", "every type right", "ServiceRevision", revision),

  invalid(
    "enum-value",
    "protocol http3",
    "Service",
    service([...config, "backend", "protocol"], "http3"),
    "spec.template.spec.backend.protocol",
  ),
  invalid(
    "enum-value",
    "phase both",
    "Service",
    git([...config, "filter", "phase"], "both"),
    "spec.template.spec.filter.phase",
  ),
  invalid(
    "enum-value",
    "failureMode open",
    "Service",
    git([...config, "filter", "failureMode"], "open"),
    "spec.template.spec.filter.failureMode",
  ),
  invalid(
    "enum-value",
    "binding type queue",
    "ServiceRevision",
    rev(["bindings", 0, "type"], "queue"),
    "spec.bindings[0].type",
  ),
  valid("enum-value", "every allowed value used", "Service", gitService),

  invalid(
    "int32-range",
    "a count above int32",
    "Service",
    service(["revisionHistoryLimit"], 2 ** 31),
    "spec.revisionHistoryLimit",
  ),
  invalid(
    "int32-range",
    "a port above int32",
    "Service",
    service([...config, "backend", "port"], 2 ** 31),
    "spec.template.spec.backend.port",
  ),
  valid("int32-range", "the int32 maximum count", "Service", service(["revisionHistoryLimit"], 2 ** 31 - 1)),

  invalid(
    "backend-port-range",
    "port 0",
    "Service",
    service([...config, "backend", "port"], 0),
    "spec.template.spec.backend.port",
  ),
  invalid(
    "backend-port-range",
    "port 65536",
    "ServiceRevision",
    rev(["backend"], { protocol: "udp", port: 65536 }),
    "spec.backend.port",
  ),
  valid("backend-port-range", "port 65535", "Service", service([...config, "backend", "port"], 65535)),
  valid("backend-port-range", "port 1", "Service", service([...config, "backend", "port"], 1)),

  invalid(
    "revision-history-range",
    "a negative count",
    "Service",
    service(["revisionHistoryLimit"], -1),
    "spec.revisionHistoryLimit",
  ),
  valid("revision-history-range", "zero", "Service", service(["revisionHistoryLimit"], 0)),

  invalid(
    "duration-format",
    "a number without unit",
    "Proxy",
    proxy(["shutdown", "drainTimeout"], "30"),
    "spec.shutdown.drainTimeout",
  ),
  invalid(
    "duration-format",
    "a space before the unit",
    "Proxy",
    proxy(["shutdown", "minimumDrainTime"], "1 m"),
    "spec.shutdown.minimumDrainTime",
  ),
  invalid(
    "duration-format",
    "days, which Go does not have",
    "Service",
    service([...config, "runtime", "timeout"], "1d"),
    "spec.template.spec.runtime.timeout",
  ),
  invalid(
    "duration-format",
    "a negative duration",
    "ServiceRevision",
    rev(["runtime", "limits", "cpuTime"], "-5ms"),
    "spec.runtime.limits.cpuTime",
  ),
  invalid(
    "duration-format",
    "an empty ttl",
    "Service",
    git(["source", "git", "previews", "ttl"], ""),
    "spec.source.git.previews.ttl",
  ),
  valid(
    "duration-format",
    "fractions and mixed units",
    "Proxy",
    proxy(["shutdown"], { drainTimeout: "1.5h", minimumDrainTime: "1h30m0.5s" }),
  ),
  valid(
    "duration-format",
    "micro- and nanoseconds",
    "ServiceRevision",
    rev(["runtime", "limits", "cpuTime"], "300us"),
  ),

  invalid(
    "digest-format",
    "uppercase hex",
    "Service",
    service([...oci, "digest"], DIGEST.toUpperCase().replace("SHA256", "sha256")),
    "spec.source.oci.digest",
  ),
  invalid(
    "digest-format",
    "another algorithm",
    "ServiceRevision",
    rev(["bundle", "digest"], `sha512:${"a".repeat(64)}`),
    "spec.bundle.digest",
  ),
  invalid(
    "digest-format",
    "63 hex digits",
    "ServiceRevision",
    rev(["bundle", "digest"], `sha256:${"a".repeat(63)}`),
    "spec.bundle.digest",
  ),
  valid("digest-format", "sha256 and 64 lowercase hex digits", "ServiceRevision", revision),

  invalid(
    "repo-format",
    "no registry host",
    "Service",
    service([...oci, "repo"], "checkout"),
    "spec.source.oci.repo",
  ),
  invalid(
    "repo-format",
    "an uppercase path",
    "Service",
    service([...oci, "repo"], "registry.example.dev/Team/app"),
    "spec.source.oci.repo",
  ),
  invalid(
    "repo-format",
    "a tag inside the repo",
    "Service",
    git([...build, "output", "repo"], "registry.example.dev/team/app:v1"),
    "spec.source.git.build.output.repo",
  ),
  invalid(
    "repo-format",
    "a URL scheme",
    "ServiceRevision",
    rev(["bundle", "repo"], "https://registry.example.dev/app"),
    "spec.bundle.repo",
  ),
  valid("repo-format", "a host with a port", "Service", service([...oci, "repo"], "127.0.0.1:5000/team/app")),
  valid("repo-format", "a host without dots", "Service", service([...oci, "repo"], "localhost/app")),
  valid(
    "repo-format",
    "a nested path",
    "ServiceRevision",
    rev(["bundle", "repo"], "registry.example.dev/org/team/app-name_2"),
  ),

  invalid(
    "tag-format",
    "a leading dot",
    "Service",
    service([...oci, "tag"], ".hidden"),
    "spec.source.oci.tag",
  ),
  invalid("tag-format", "a slash", "ServiceRevision", rev(["bundle", "tag"], "v1/2"), "spec.bundle.tag"),
  invalid(
    "tag-format",
    "129 characters",
    "ServiceRevision",
    rev(["bundle", "tag"], "a".repeat(129)),
    "spec.bundle.tag",
  ),
  valid("tag-format", "a semantic version", "Service", ociService),

  invalid(
    "dns1123-name",
    "liveRevision with uppercase and underscore",
    "Service",
    service(["liveRevision"], "Checkout_1"),
    "spec.liveRevision",
  ),
  invalid(
    "dns1123-name",
    "gatewayRef starting with a dash",
    "ServiceRevision",
    rev(["egress", "gatewayRef"], "-gw"),
    "spec.egress.gatewayRef",
  ),
  valid("dns1123-name", "an empty liveRevision (auto)", "Service", service(["liveRevision"], "")),
  valid("dns1123-name", "a dotted gatewayRef", "ServiceRevision", rev(["egress", "gatewayRef"], "gw.team")),

  invalid(
    "otel-endpoint-url",
    "no scheme",
    "Proxy",
    proxy(["telemetry", "thirdPartySinks", "openTelemetrySinks", 0, "endpoint"], "otel.example.dev:4318"),
    "spec.telemetry.thirdPartySinks.openTelemetrySinks[0].endpoint",
  ),
  invalid(
    "otel-endpoint-url",
    "an ftp URL",
    "Proxy",
    proxy(["telemetry", "thirdPartySinks", "openTelemetrySinks", 0, "endpoint"], "ftp://otel.example.dev"),
    "spec.telemetry.thirdPartySinks.openTelemetrySinks[0].endpoint",
  ),
  valid(
    "otel-endpoint-url",
    "plain http on loopback",
    "Proxy",
    proxy(
      ["telemetry", "thirdPartySinks", "openTelemetrySinks", 0, "endpoint"],
      "http://127.0.0.1:4318/v1/traces",
    ),
  ),

  invalid(
    "quantity-format",
    "a unit with a space",
    "Service",
    service([...config, "runtime", "limits", "memory"], "128 MB"),
    "spec.template.spec.runtime.limits.memory",
  ),
  invalid(
    "quantity-format",
    "a word",
    "ServiceRevision",
    rev(["runtime", "limits", "memory"], "lots"),
    "spec.runtime.limits.memory",
  ),
  valid(
    "quantity-format",
    "a byte count",
    "ServiceRevision",
    rev(["runtime", "limits", "memory"], "134217728"),
  ),
  valid("quantity-format", "a decimal suffix", "ServiceRevision", rev(["runtime", "limits", "memory"], "1G")),

  invalid(
    "key-data-base64",
    "text that is not base64",
    "Proxy",
    proxy(["telemetry", "thirdPartySinks", "vendorAlphaLogs", "keyData"], "sk live key!"),
    "spec.telemetry.thirdPartySinks.vendorAlphaLogs.keyData",
  ),
  invalid(
    "key-data-base64",
    "base64 without its padding",
    "Proxy",
    proxy(["telemetry", "thirdPartySinks", "vendorBetaTraces", "keyData"], "c2stbGl2ZQ"),
    "spec.telemetry.thirdPartySinks.vendorBetaTraces.keyData",
  ),
  valid(
    "key-data-base64",
    "padded base64",
    "Proxy",
    proxy(["telemetry", "thirdPartySinks", "vendorBetaTraces", "keyData"], "c2stbGl2ZQ=="),
  ),

  // Cross-field rules of DESIGN.md
  invalid(
    "backend-filter-exclusive",
    "a template with both",
    "Service",
    service([...config, "filter"], {}),
    "spec.template.spec.filter",
  ),
  invalid(
    "backend-filter-exclusive",
    "a revision with both",
    "ServiceRevision",
    rev(["filter"], { phase: "request" }),
    "spec.filter",
  ),
  valid("backend-filter-exclusive", "filter only", "Service", gitService),

  invalid(
    "backend-port-required",
    "tcp without port",
    "Service",
    service([...config, "backend"], { protocol: "tcp" }),
    "spec.template.spec.backend.port",
  ),
  invalid(
    "backend-port-required",
    "udp without port",
    "ServiceRevision",
    rev(["backend"], { protocol: "udp" }),
    "spec.backend.port",
  ),
  valid("backend-port-required", "http2 without port", "ServiceRevision", revision),

  invalid(
    "binding-type-match",
    "type kv with a secret instead",
    "ServiceRevision",
    rev(["bindings", 0], { name: "CACHE", type: "kv", secret: { store: "s", key: "k" } }),
    "spec.bindings[0].kv",
    "spec.bindings[0].secret",
  ),
  invalid(
    "binding-type-match",
    "type service without service",
    "Service",
    service([...config, "bindings", 2, "service"], undefined),
    "spec.template.spec.bindings[2].service",
  ),
  valid("binding-type-match", "each binding with its own sub-object", "Service", ociService),

  invalid(
    "unique-names",
    "a repeated env name",
    "Service",
    service([...config, "env", 1, "name"], "LOG_LEVEL"),
    "spec.template.spec.env[1].name",
  ),
  invalid(
    "unique-names",
    "a repeated binding name",
    "ServiceRevision",
    rev(["bindings", 1], { name: "CACHE", type: "kv", kv: { namespace: "other" } }),
    "spec.bindings[1].name",
  ),
  invalid(
    "unique-names",
    "a repeated build env name",
    "Service",
    git([...build, "env", 1], { name: "NODE_ENV", value: "test" }),
    "spec.source.git.build.env[1].name",
  ),
  valid(
    "unique-names",
    "an env var and a binding sharing a name",
    "ServiceRevision",
    rev(["env", 0, "name"], "CACHE"),
  ),

  // Warnings
  invalid(
    "bundle-digest-pinned",
    "a tag-only oci source",
    "Service",
    service([...oci, "digest"], undefined),
    "spec.source.oci.digest",
  ),
  invalid(
    "bundle-digest-pinned",
    "neither tag nor digest (tag latest)",
    "Service",
    service(oci, { repo: "registry.example.dev/team/app" }),
    "spec.source.oci.digest",
  ),
  valid("bundle-digest-pinned", "a build output, whose digest comes from the build", "Service", gitService),

  invalid(
    "build-output-unpinned",
    "a build output with a digest",
    "Service",
    git([...build, "output", "digest"], DIGEST),
    "spec.source.git.build.output.digest",
  ),
  valid(
    "build-output-unpinned",
    "a build output with a tag",
    "Service",
    git([...build, "output", "tag"], "main"),
  ),
  valid(
    "build-output-unpinned",
    "an unknown digest",
    "Service",
    git([...build, "output", "digest"], UNKNOWN),
  ),

  invalid(
    "build-command-pull-requests",
    "a build command for pull requests",
    "Service",
    git(["source", "git", "triggers", "onPullRequest"], true),
    "spec.source.git.build.command",
  ),
  valid("build-command-pull-requests", "a build command, pull requests off", "Service", gitService),
  valid(
    "build-command-pull-requests",
    "pull requests without a build command",
    "Service",
    withValue(git(["source", "git", "triggers", "onPullRequest"], true), [...build, "command"], undefined),
  ),

  invalid(
    "preview-ttl",
    "previews without a ttl",
    "Service",
    git(["source", "git", "previews"], { enabled: true }),
    "spec.source.git.previews.ttl",
  ),
  valid("preview-ttl", "previews with a ttl", "Service", gitService),
  valid(
    "preview-ttl",
    "previews disabled",
    "Service",
    git(["source", "git", "previews"], { enabled: false }),
  ),
  valid(
    "preview-ttl",
    "an unknown ttl",
    "Service",
    git(["source", "git", "previews"], { enabled: true, ttl: UNKNOWN }),
  ),

  invalid(
    "pull-request-previews",
    "pull requests without previews",
    "Service",
    withValue(
      git(["source", "git", "triggers", "onPullRequest"], true),
      ["source", "git", "previews"],
      undefined,
    ),
    "spec.source.git.triggers.onPullRequest",
  ),
  invalid(
    "pull-request-previews",
    "pull requests with previews disabled",
    "Service",
    withValue(git(["source", "git", "triggers", "onPullRequest"], true), ["source", "git", "previews"], {
      enabled: false,
    }),
    "spec.source.git.triggers.onPullRequest",
  ),
  valid(
    "pull-request-previews",
    "pull requests with previews",
    "Service",
    git(["source", "git", "triggers", "onPullRequest"], true),
  ),
  valid(
    "pull-request-previews",
    "previews not yet known",
    "Service",
    withValue(
      git(["source", "git", "triggers", "onPullRequest"], true),
      ["source", "git", "previews"],
      UNKNOWN,
    ),
  ),

  invalid(
    "password-plaintext",
    "a plain password",
    "Service",
    service([...oci, "credentials"], { username: "ci", password: "pw" }),
    "spec.source.oci.credentials.password",
  ),
  valid("password-plaintext", "passwordData only", "Service", ociService),
  valid(
    "password-plaintext",
    "password with passwordData (a precedence case)",
    "Service",
    service([...oci, "credentials"], { password: "a", passwordData: "b" }),
  ),

  invalid(
    "password-precedence",
    "both password and passwordData",
    "ServiceRevision",
    rev(["bundle", "credentials"], { password: "a", passwordData: "b" }),
    "spec.bundle.credentials.password",
  ),
  valid(
    "password-precedence",
    "password only",
    "Service",
    service([...oci, "credentials"], { password: "a" }),
  ),

  invalid(
    "third-party-sinks-cloud-only",
    "sinks on a self-managed proxy",
    "Proxy",
    withValue(selfManagedProxy, ["telemetry", "thirdPartySinks"], { vendorBetaLogs: { key: "k" } }),
    "spec.telemetry.thirdPartySinks",
  ),
  valid("third-party-sinks-cloud-only", "sinks on a cloud proxy", "Proxy", cloudProxy),
  valid(
    "third-party-sinks-cloud-only",
    "sinks with provider defaulted to cloud",
    "Proxy",
    proxy(["provider"], undefined),
  ),

  invalid(
    "otel-collector-unmanaged-only",
    "a collector on a cloud proxy",
    "Proxy",
    proxy(["telemetry", "otelCollectorConfig"], { group: "", name: "c" }),
    "spec.telemetry.otelCollectorConfig",
  ),
  invalid(
    "otel-collector-unmanaged-only",
    "a collector with provider defaulted to cloud",
    "Proxy",
    withValue(selfManagedProxy, ["provider"], undefined),
    "spec.telemetry.otelCollectorConfig",
  ),
  valid("otel-collector-unmanaged-only", "a collector on a self-managed proxy", "Proxy", selfManagedProxy),

  invalid(
    "backend-port-ignored",
    "http1 with a port",
    "Service",
    service([...config, "backend"], { protocol: "http1", port: 8080 }),
    "spec.template.spec.backend.port",
  ),
  invalid(
    "backend-port-ignored",
    "the default protocol with a port",
    "ServiceRevision",
    rev(["backend"], { port: 8080 }),
    "spec.backend.port",
  ),
  valid("backend-port-ignored", "tcp with a port", "Service", ociService),

  invalid(
    "revision-history-minimum",
    "one revision",
    "Service",
    service(["revisionHistoryLimit"], 1),
    "spec.revisionHistoryLimit",
  ),
  invalid(
    "revision-history-minimum",
    "no revisions",
    "Service",
    service(["revisionHistoryLimit"], 0),
    "spec.revisionHistoryLimit",
  ),
  valid("revision-history-minimum", "two revisions", "Service", service(["revisionHistoryLimit"], 2)),
  valid("revision-history-minimum", "the default", "Service", service(["revisionHistoryLimit"], undefined)),

  // Updates
  update(
    invalid(
      "service-mode-immutable",
      "backend to filter",
      "Service",
      withValue(ociService, ["template", "spec"], gitService.template.spec),
      "spec.template.spec.filter",
    ),
    ociService,
  ),
  update(
    invalid(
      "service-mode-immutable",
      "defaulted backend mode to filter",
      "Service",
      gitService,
      "spec.template.spec.filter",
    ),
    git([...config, "filter"], undefined),
  ),
  update(
    invalid(
      "service-mode-immutable",
      "filter to backend",
      "Service",
      ociService,
      "spec.template.spec.backend",
    ),
    service(["template", "spec"], gitService.template.spec),
  ),
  update(
    valid(
      "service-mode-immutable",
      "a new backend port",
      "Service",
      service([...config, "backend", "port"], 9000),
    ),
    ociService,
  ),
  update(
    valid(
      "service-mode-immutable",
      "a filter changing phase",
      "Service",
      git([...config, "filter", "phase"], "request"),
    ),
    gitService,
  ),
  update(
    valid("service-mode-immutable", "an unknown filter", "Service", git([...config, "filter"], UNKNOWN)),
    ociService,
  ),
  update(
    invalid(
      "revision-spec-immutable",
      "a new runtime timeout",
      "ServiceRevision",
      rev(["runtime", "timeout"], "1m"),
      "spec",
    ),
    revision,
  ),
  update(valid("revision-spec-immutable", "the same spec", "ServiceRevision", revision), revision),
  update(
    valid(
      "revision-spec-immutable",
      "the default written out",
      "ServiceRevision",
      rev(["runtime", "timeout"], "30s"),
    ),
    rev(["runtime", "timeout"], undefined),
  ),
  update(
    valid("revision-spec-immutable", "an unknown env", "ServiceRevision", rev(["env"], UNKNOWN)),
    revision,
  ),
];

describe.each(RULES.map((rule) => [rule.id, rule] as const))("rule %s", (id, rule) => {
  const cases = CASES.filter((item) => item.rule === id);

  test("has at least one invalid and one valid case", () => {
    expect(cases.some((item) => item.expected.length > 0)).toBe(true);
    expect(cases.some((item) => item.expected.length === 0)).toBe(true);
  });

  test.each(cases.map((item) => [item.name, item] as const))("%s", (_name, item) => {
    const all =
      item.previous === undefined
        ? validateSpec(item.kind, item.spec)
        : validateUpdate(item.kind, item.previous, item.spec);
    const found = all.filter((violation) => violation.rule === id);
    expect(found.map((violation) => [violation.path, violation.severity])).toEqual(item.expected);
    for (const violation of found) {
      expect(rule.kinds).toContain(item.kind);
      expect(violation.message.startsWith(`${violation.path}: `)).toBe(true);
    }
  });
});

test("every case names a rule of the catalog", () => {
  const ids = new Set(RULES.map((rule) => rule.id));
  expect(CASES.filter((item) => !ids.has(item.rule)).map((item) => item.rule)).toEqual([]);
});
