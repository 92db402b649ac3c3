import type { ResourceValidationPolicy } from "@pulumi/policy";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ORGANISATION_POLICIES } from "../../policies/organisation";
import { RULE_POLICIES } from "../../policies/rule-policies";
import { RULE_REMEDIATIONS } from "../../policies/rule-remediations";
import { type KindName, metadataIssues, validateSpec } from "../../sdk/schema";
import { cloudProxy, ociService, revision, withValue } from "../unit/schema/examples";
import { exampleResource, specWith } from "./fixtures";
import { runRemediation, runResourcePolicy, type TestResource } from "./harness";

const requiredLabels = ORGANISATION_POLICIES.find(({ policy }) => policy.name === "required-labels")?.policy;
const ruleRemediations = RULE_POLICIES.filter((policy) => policy.remediateResource !== undefined);
if (requiredLabels === undefined) throw new Error("no required-labels policy");
/** Every policy that remediates, in the pack's order (the engine runs them one after another). */
const REMEDIATING: readonly ResourceValidationPolicy[] = [...ruleRemediations, requiredLabels];

async function remediateAll(resource: TestResource, config: Record<string, unknown>): Promise<TestResource> {
  let props = resource.props;
  for (const policy of REMEDIATING) {
    props = (await runRemediation(policy, { ...resource, props }, { config })) ?? props;
  }
  return { ...resource, props };
}

describe("rule remediations", () => {
  it("exist for exactly the rules with an unambiguous fix", () => {
    expect(ruleRemediations.map(({ name }) => name).sort()).toEqual(Object.keys(RULE_REMEDIATIONS).sort());
  });

  it("raise minimumDrainTime to drainTimeout, or to drainTimeout's default when it is unset", async () => {
    const drainMinimum = ruleRemediations.find(({ name }) => name === "drain-minimum");
    if (drainMinimum === undefined) throw new Error("no drain-minimum remediation");
    const proxy = (shutdown: Record<string, unknown>) =>
      exampleResource("Proxy", "edge", specWith("Proxy", { shutdown }));
    const raised = await runRemediation(
      drainMinimum,
      proxy({ drainTimeout: "60s", minimumDrainTime: "10s" }),
    );
    expect(raised?.spec).toMatchObject({ shutdown: { drainTimeout: "60s", minimumDrainTime: "60s" } });
    const fromDefault = await runRemediation(
      drainMinimum,
      proxy({ drainTimeout: null, minimumDrainTime: "10s" }),
    );
    expect(fromDefault?.spec).toMatchObject({ shutdown: { minimumDrainTime: "30s" } });
    expect(await runRemediation(drainMinimum, proxy({ drainTimeout: "30s", minimumDrainTime: "45s" }))).toBe(
      undefined,
    );
  });

  it("remove the fields the API ignores: a password beside passwordData, a port for http1/http2", async () => {
    const service = exampleResource(
      "Service",
      "web",
      specWith("Service", {
        source: { oci: { credentials: { username: "ci", password: "p", passwordData: "p" } } },
        template: { spec: { backend: { protocol: "http2", port: 8080 } } },
      }),
    );
    const remediated = await remediateAll(service, {});
    expect(remediated.props.spec).toMatchObject({
      source: { oci: { credentials: { username: "ci", passwordData: "p" } } },
      template: { spec: { backend: { protocol: "http2" } } },
    });
    expect(JSON.stringify(remediated.props)).not.toMatch(/"password"|"port"/);
  });
});

// Generated resources: complete examples of each kind with the fields remediations touch set at random.
const duration = fc.option(
  fc.tuple(fc.nat({ max: 900 }), fc.constantFrom("ms", "s", "m", "h")).map(([n, unit]) => `${n}${unit}`),
  { nil: undefined },
);
const secretText = fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined });
const credentials = fc
  .record({ password: secretText, passwordData: secretText })
  .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)));
const backend = fc.record({
  protocol: fc.constantFrom("http1", "http2", "tcp", "udp"),
  port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
});
const LABEL_KEYS = ["team", "environment", "example.dev/cost-centre"];
const LABEL_VALUES = ["web", "staging", "production", "dev", ""];
const labels = fc.dictionary(fc.constantFrom(...LABEL_KEYS), fc.constantFrom(...LABEL_VALUES));

const specs: Record<KindName, fc.Arbitrary<unknown>> = {
  Proxy: fc
    .record({ drainTimeout: duration, minimumDrainTime: duration })
    .map(({ drainTimeout, minimumDrainTime }) =>
      withValue(
        withValue(cloudProxy, ["shutdown", "drainTimeout"], drainTimeout),
        ["shutdown", "minimumDrainTime"],
        minimumDrainTime,
      ),
    ),
  Service: fc
    .record({ credentials, backend })
    .map(({ credentials, backend }) =>
      withValue(
        withValue(ociService, ["source", "oci", "credentials"], credentials),
        ["template", "spec", "backend"],
        backend,
      ),
    ),
  ServiceRevision: fc
    .record({ credentials, backend })
    .map(({ credentials, backend }) =>
      withValue(withValue(revision, ["bundle", "credentials"], credentials), ["backend"], backend),
    ),
};

/** A required-labels config: required keys with allowed values, and for some a default among them. */
const labelConfig = fc
  .dictionary(fc.constantFrom(...LABEL_KEYS), fc.subarray(LABEL_VALUES.filter((value) => value !== "")))
  .chain((required) =>
    fc
      .record(
        Object.fromEntries(
          Object.entries(required).map(([key, allowed]) => [
            key,
            fc.option(fc.constantFrom(...(allowed.length > 0 ? allowed : LABEL_VALUES)), { nil: undefined }),
          ]),
        ),
      )
      .map((defaults) => ({
        labels: required,
        defaults: Object.fromEntries(Object.entries(defaults).filter(([, value]) => value !== undefined)),
      })),
  );

const resource = fc
  .constantFrom<KindName>("Proxy", "Service", "ServiceRevision")
  .chain((kind) => fc.record({ kind: fc.constant(kind), spec: specs[kind], labels, config: labelConfig }));

const REMEDIATED_RULES = Object.keys(RULE_REMEDIATIONS);
const key = ({ rule, path }: { rule: string; path: string }) => `${rule} ${path}`;

describe("remediations, over generated resources", () => {
  it("leave a spec the schema accepts: no violation of a remediated rule, none that was not there before", async () => {
    await fc.assert(
      fc.asyncProperty(resource, async ({ kind, spec, labels: written, config }) => {
        const before = validateSpec(kind, spec);
        const subject = exampleResource(kind, "subject", spec, { name: "subject", labels: written });
        const after = await remediateAll(subject, { ...config });
        const violations = validateSpec(kind, after.props.spec);
        expect(violations.filter(({ rule }) => REMEDIATED_RULES.includes(rule))).toEqual([]);
        const introduced = violations.map(key).filter((found) => !before.map(key).includes(found));
        expect(introduced).toEqual([]);
        expect(metadataIssues(after.props.metadata as object)).toEqual([]);
        // Every required label with a default is there now; only values the author chose can still be wrong.
        const reports = await runResourcePolicy(requiredLabels, after, { config });
        expect(
          reports.filter(
            (report) =>
              report.includes("missing") &&
              Object.keys(config.defaults).some(
                (label) => report.includes(`.${label}:`) || report.includes(`["${label}"]`),
              ),
          ),
        ).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
