import { gitService, ociService, revision } from "../examples";
import { build, config, git, invalid, type RuleCase, rev, service, valid } from "./case";

/** The cross-field rules of DESIGN.md. */
export const CROSS_FIELD_CASES: RuleCase[] = [
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
];
