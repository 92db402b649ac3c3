import { expect, test } from "vitest";
import { type KindName, UNKNOWN, validateSpec } from "../../../sdk/schema";
import { cloudProxy, EXAMPLES, gitService, ociService, pathsOf, revision, withValue } from "./examples";

test.each(EXAMPLES.map((example) => [example.name, example] as const))(
  "in %s, any one field or object set to UNKNOWN is accepted",
  (_name, { kind, spec }) => {
    for (const path of pathsOf(spec)) {
      expect({ path, violations: validateSpec(kind, withValue(spec, path, UNKNOWN)) }).toEqual({
        path,
        violations: [],
      });
    }
  },
);

test.each(["Proxy", "Service", "ServiceRevision"] as const)(
  "a whole %s spec that is UNKNOWN is accepted",
  (kind) => {
    expect(validateSpec(kind, UNKNOWN)).toEqual([]);
  },
);

test.each<[string, KindName, unknown]>([
  [
    "a required field",
    "Service",
    withValue(ociService, ["template", "spec", "runtime", "compatibilityDate"], UNKNOWN),
  ],
  ["a required object", "ServiceRevision", withValue(revision, ["bundle"], UNKNOWN)],
  ["an integer", "Service", withValue(ociService, ["revisionHistoryLimit"], UNKNOWN)],
  ["a list", "Service", withValue(ociService, ["template", "spec", "env"], UNKNOWN)],
  ["an enumerated value", "Service", withValue(gitService, ["template", "spec", "filter", "phase"], UNKNOWN)],
])("%s that is UNKNOWN is no violation", (_name, kind, spec) => {
  expect(validateSpec(kind, spec)).toEqual([]);
});

test.each<[string, KindName, unknown]>([
  [
    "drain-minimum, with an unknown drainTimeout",
    "Proxy",
    withValue(cloudProxy, ["shutdown"], { drainTimeout: UNKNOWN, minimumDrainTime: "1s" }),
  ],
  [
    "egress-exclusive, with an unknown disabled",
    "Service",
    withValue(ociService, ["template", "spec", "egress", "disabled"], UNKNOWN),
  ],
  [
    "source-exactly-one, with an unknown git next to oci",
    "Service",
    withValue(ociService, ["source", "git"], UNKNOWN),
  ],
  [
    "backend-filter-exclusive, with an unknown filter",
    "ServiceRevision",
    withValue(revision, ["filter"], UNKNOWN),
  ],
  [
    "backend-port-required, with an unknown port",
    "ServiceRevision",
    withValue(revision, ["backend"], { protocol: "tcp", port: UNKNOWN }),
  ],
  [
    "backend-port-ignored, with an unknown protocol",
    "ServiceRevision",
    withValue(revision, ["backend"], { protocol: UNKNOWN, port: 80 }),
  ],
  [
    "binding-type-match, with an unknown type",
    "ServiceRevision",
    withValue(revision, ["bindings", 0, "type"], UNKNOWN),
  ],
  [
    "unique-names, with unknown names",
    "ServiceRevision",
    withValue(
      revision,
      ["env"],
      [
        { name: UNKNOWN, value: "a" },
        { name: UNKNOWN, value: "b" },
      ],
    ),
  ],
  [
    "bundle-credentials-exclusive, with unknown credentials",
    "Service",
    withValue(ociService, ["source", "oci", "credentialsRef"], UNKNOWN),
  ],
  [
    "revision-bundle-digest, with an unknown digest",
    "ServiceRevision",
    withValue(revision, ["bundle", "digest"], UNKNOWN),
  ],
  [
    "bundle-digest-pinned, with an unknown digest",
    "Service",
    withValue(ociService, ["source", "oci", "digest"], UNKNOWN),
  ],
  [
    "third-party-sinks-cloud-only, with an unknown provider",
    "Proxy",
    withValue(cloudProxy, ["provider"], UNKNOWN),
  ],
  [
    "password-precedence, with an unknown passwordData",
    "Service",
    withValue(ociService, ["source", "oci", "credentials"], { password: "a", passwordData: UNKNOWN }),
  ],
])("a rule that needs an unknown value is skipped: %s", (_name, kind, spec) => {
  expect(validateSpec(kind, spec)).toEqual([]);
});

test("an unknown value does not hide other violations", () => {
  const spec = withValue(withValue(ociService, ["liveRevision"], UNKNOWN), ["revisionHistoryLimit"], -1);
  expect(validateSpec("Service", spec).map((violation) => violation.rule)).toEqual([
    "revision-history-range",
  ]);
});

test("a misspelt field is an error even when its value is unknown", () => {
  const spec = withValue(ociService, ["template", "spec", "enviroment"], UNKNOWN);
  expect(validateSpec("Service", spec).map((violation) => violation.path)).toEqual([
    "spec.template.spec.enviroment",
  ]);
});
