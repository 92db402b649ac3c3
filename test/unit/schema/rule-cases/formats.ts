import { DIGEST, ociService, revision } from "../examples";
import { build, config, git, invalid, oci, proxy, type RuleCase, rev, service, valid } from "./case";

/** The formats of strings: durations, digests, repositories, tags, names, URLs, quantities, keys. */
export const FORMAT_CASES: RuleCase[] = [
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
    "git-file-url",
    "a file:// URL naming a host",
    "Service",
    git(["source", "git", "url"], "file://127.0.0.1/srv/git/app.git"),
    "spec.source.git.url",
  ),
  valid(
    "git-file-url",
    "a file:// URL on this machine",
    "Service",
    git(["source", "git", "url"], "file:///srv/app.git"),
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
];
