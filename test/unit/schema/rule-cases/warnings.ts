import { UNKNOWN } from "../../../../sdk/schema";
import { cloudProxy, DIGEST, gitService, ociService, selfManagedProxy, withValue } from "../examples";
import { build, config, git, invalid, oci, proxy, type RuleCase, rev, service, valid } from "./case";

/** The rules whose violations are warnings. */
export const WARNING_CASES: RuleCase[] = [
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
];
