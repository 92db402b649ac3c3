import type { ResourceValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { RULE_POLICIES } from "../../policies/rule-policies";
import { TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { type KindName, RULES, UNKNOWN, validateUpdate } from "../../sdk/schema";
import { exampleResource, specWith, VALID_SPECS } from "./fixtures";
import { runResourcePolicy } from "./harness";
import { FAILING_CASES } from "./rule-cases";

function policyFor(ruleId: string): ResourceValidationPolicy {
  const policy = RULE_POLICIES.find(({ name }) => name === ruleId);
  if (policy === undefined) throw new Error(`no policy named ${ruleId}`);
  return policy;
}

function failingCase(ruleId: string) {
  const found = FAILING_CASES[ruleId];
  if (found === undefined) throw new Error(`no failing case for ${ruleId}`);
  return found;
}

/** Every message all rule policies report for one resource. */
async function reportsOfAllPolicies(kind: KindName, spec: unknown): Promise<string[]> {
  const reports = await Promise.all(
    RULE_POLICIES.map((policy) => runResourcePolicy(policy, exampleResource(kind, "subject", spec))),
  );
  return reports.flat();
}

// The rules a policy can check: all but those about changes, which need the stored spec.
const SPEC_RULES = RULES.filter((rule) => !rule.change);

describe("rule policies", () => {
  it("are one per rule of the schema that checks a spec, named by its id and described by it", () => {
    expect(RULE_POLICIES.map(({ name, description }) => ({ name, description }))).toEqual(
      SPEC_RULES.map(({ id, description }) => ({ name: id, description })),
    );
  });

  it("leave out only rules that judge a change from the stored spec", () => {
    expect(RULES.filter((rule) => rule.change).map(({ id }) => id)).toEqual([
      "service-mode-immutable",
      "revision-spec-immutable",
    ]);
    const backend = specWith("Service", {});
    const filter = specWith("Service", {
      template: { spec: { backend: null, filter: { phase: "request" } } },
    });
    expect(validateUpdate("Service", backend, filter).map(({ rule }) => rule)).toEqual([
      "service-mode-immutable",
    ]);
  });

  it("block on errors and advise on warnings by default", () => {
    for (const rule of SPEC_RULES) {
      expect(policyFor(rule.id).enforcementLevel, rule.id).toBe(
        rule.severity === "error" ? "mandatory" : "advisory",
      );
    }
  });

  it("have a failing case each", () => {
    expect(Object.keys(FAILING_CASES).sort()).toEqual(SPEC_RULES.map(({ id }) => id).sort());
  });

  describe.each(SPEC_RULES.map((rule) => [rule.id, rule] as const))("%s", (ruleId, rule) => {
    it("passes a valid spec of each kind it applies to", async () => {
      for (const kind of rule.kinds) {
        expect(
          await runResourcePolicy(policyFor(ruleId), exampleResource(kind, "valid", VALID_SPECS[kind])),
        ).toEqual([]);
      }
    });

    it("reports the resource, the field path and the fix", async () => {
      const { kind, name, spec, messages } = failingCase(ruleId);
      expect(await runResourcePolicy(policyFor(ruleId), exampleResource(kind, name, spec))).toEqual(messages);
    });

    it("is the only policy that reports its failing case", async () => {
      const { kind, spec, messages } = failingCase(ruleId);
      expect(await reportsOfAllPolicies(kind, spec)).toHaveLength(messages.length);
    });

    it("ignores resources that are not of the SDK's kinds", async () => {
      const { spec } = failingCase(ruleId);
      const bucket = { type: "aws:s3/bucket:Bucket", name: "bucket", props: { spec } };
      expect(await runResourcePolicy(policyFor(ruleId), bucket)).toEqual([]);
    });
  });
});

describe("service-required-fields and the compatibility date", () => {
  const policy = policyFor("service-required-fields");
  const message = (name: string) =>
    `Service "${name}": spec.template.spec.runtime.compatibilityDate: is required; set it to a date such as "2026-01-01" (the worker runtime's compatibility date)`;

  it.each([
    ["an empty template.spec", { ...specWith("Service", {}), template: { spec: {} } }],
    ["a template without runtime", specWith("Service", { template: { spec: { runtime: null } } })],
    [
      "a runtime without it",
      specWith("Service", { template: { spec: { runtime: { compatibilityDate: null } } } }),
    ],
  ])("reports a Service with %s at the date's field", async (_name, spec) => {
    expect(await runResourcePolicy(policy, exampleResource("Service", "web", spec))).toEqual([
      message("web"),
    ]);
    expect(await reportsOfAllPolicies("Service", spec)).toEqual([message("subject")]);
  });

  it("passes a ServiceRevision without runtime: revisions are minted from valid Services", async () => {
    const revision = specWith("ServiceRevision", { runtime: null });
    expect(await reportsOfAllPolicies("ServiceRevision", revision)).toEqual([]);
  });
});

describe("unknown values during preview", () => {
  // Each spec breaks the named rule once its unknown value resolves, but cannot be judged before.
  const cases: [string, KindName, Record<string, unknown>][] = [
    [
      "egress-exclusive",
      "Service",
      specWith("Service", { template: { spec: { egress: { disabled: true, gatewayRef: UNKNOWN } } } }),
    ],
    [
      "bundle-credentials-exclusive",
      "Service",
      specWith("Service", { source: { oci: { credentials: { username: "ci" }, credentialsRef: UNKNOWN } } }),
    ],
    [
      "drain-minimum",
      "Proxy",
      specWith("Proxy", { shutdown: { drainTimeout: "60s", minimumDrainTime: UNKNOWN } }),
    ],
    ["source-exactly-one", "Service", specWith("Service", { source: { git: UNKNOWN } })],
    ["service-required-fields", "Service", specWith("Service", { template: { spec: UNKNOWN } })],
    ["service-required-fields", "Service", specWith("Service", { template: { spec: { runtime: UNKNOWN } } })],
    [
      "service-required-fields",
      "Service",
      specWith("Service", { template: { spec: { runtime: { compatibilityDate: UNKNOWN } } } }),
    ],
    ["revision-bundle-required", "ServiceRevision", specWith("ServiceRevision", { bundle: UNKNOWN })],
    [
      "revision-bundle-digest",
      "ServiceRevision",
      specWith("ServiceRevision", { bundle: { digest: UNKNOWN } }),
    ],
    ["dns1123-name", "Service", specWith("Service", { liveRevision: UNKNOWN })],
    [
      "bundle-digest-pinned",
      "Service",
      specWith("Service", { source: { oci: { digest: null, tag: UNKNOWN } } }),
    ],
    [
      "password-plaintext",
      "Service",
      specWith("Service", { source: { oci: { credentials: { username: "ci", password: UNKNOWN } } } }),
    ],
    [
      "third-party-sinks-cloud-only",
      "Proxy",
      specWith("Proxy", {
        provider: UNKNOWN,
        telemetry: { thirdPartySinks: { vendorBetaLogs: { key: "beta" } } },
      }),
    ],
    [
      "otel-collector-unmanaged-only",
      "Proxy",
      specWith("Proxy", {
        provider: UNKNOWN,
        telemetry: { otelCollectorConfig: { group: "core", name: "otel" } },
      }),
    ],
    [
      "backend-port-ignored",
      "Service",
      specWith("Service", { template: { spec: { backend: { protocol: UNKNOWN } } } }),
    ],
    ["revision-history-minimum", "Service", specWith("Service", { revisionHistoryLimit: UNKNOWN })],
  ];

  it.each(cases)(
    "%s skips its check, and no policy fails, while the value is unknown",
    async (ruleId, kind, spec) => {
      expect(await runResourcePolicy(policyFor(ruleId), exampleResource(kind, "subject", spec))).toEqual([]);
      expect(await reportsOfAllPolicies(kind, spec)).toEqual([]);
    },
  );

  it.each(Object.keys(VALID_SPECS) as KindName[])(
    "no policy reports a %s whose whole spec is unknown",
    async (kind) => {
      expect(await reportsOfAllPolicies(kind, UNKNOWN)).toEqual([]);
    },
  );

  it("no policy reports a resource whose spec is absent from the inputs", async () => {
    const resource = { type: TYPE_TOKENS.Service, name: "web", props: { metadata: { name: "web" } } };
    const reports = await Promise.all(RULE_POLICIES.map((policy) => runResourcePolicy(policy, resource)));
    expect(reports.flat()).toEqual([]);
  });
});

describe("messages", () => {
  it("never quote secret values, even when they are wrongly typed or misplaced", async () => {
    const spec = specWith("Service", {
      source: {
        oci: {
          credentials: {
            username: "ci",
            password: "plain-secret-1",
            passwordData: 424242,
            accessToken: ["token-secret-2"],
          },
          credentialsRef: { group: "core", name: "registry", namespace: "ci" },
        },
      },
    });
    const messages = await reportsOfAllPolicies("Service", spec);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).not.toMatch(/plain-secret-1|424242|token-secret-2/);
  });
});
