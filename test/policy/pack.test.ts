import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORGANISATION_POLICIES } from "../../policies/organisation";
import { POLICIES } from "../../policies/policies";
import { UNKNOWN } from "../../sdk/schema";
import { exampleResource, specWith, VALID_SPECS } from "./fixtures";
import { FAILING_CASES } from "./rule-cases";
import { type Diagnostic, type EnforcementLevel, type ServedPack, servePack } from "./served-pack";

const SECTION_7_RULES = [
  "egress-exclusive",
  "bundle-credentials-exclusive",
  "drain-minimum",
  "source-exactly-one",
  "service-required-fields",
  "revision-bundle-required",
];

// Issue 7's advisory list, plus password-precedence (a password that passwordData overrides), plus issue
// 15's git-source advice (previews without a ttl, pull requests without previews, pull requests that run
// the build command).
const ADVISORY_POLICIES = [
  "bundle-digest-pinned",
  "preview-ttl",
  "pull-request-previews",
  "build-command-pull-requests",
  "password-plaintext",
  "password-precedence",
  "third-party-sinks-cloud-only",
  "otel-collector-unmanaged-only",
  "backend-port-ignored",
  "live-revision-managed",
  "revision-history-minimum",
];

function enforcementLevelOf(name: string) {
  return POLICIES.find((policy) => policy.name === name)?.enforcementLevel;
}

/** What the engine receives for a rule's failing case: the server puts the policy's description first. */
/** What the served pack reports: the description, the violation, then how to fix it and where it is documented. */
function diagnostic(ruleId: string, enforcementLevel: EnforcementLevel): Diagnostic {
  const policy = POLICIES.find((candidate) => candidate.name === ruleId);
  const [message] = FAILING_CASES[ruleId]?.messages ?? [];
  const reference = `How to fix: ${policy?.remediationSteps}\nReference: ${policy?.url}`;
  return { policy: ruleId, enforcementLevel, message: `${policy?.description}\n${message}\n${reference}` };
}

describe("the policy pack", () => {
  it("names every policy uniquely, and none with the name reserved for all policies", () => {
    const names = POLICIES.map(({ name }) => name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain("all");
  });

  it("makes every rule of section 7 mandatory", () => {
    for (const name of SECTION_7_RULES) expect(enforcementLevelOf(name), name).toBe("mandatory");
  });

  it("makes exactly the issue's advisory checks advisory, the organisation policies disabled, and everything else mandatory", () => {
    const disabled = ORGANISATION_POLICIES.map(({ policy }) => policy.name);
    for (const { name, enforcementLevel } of POLICIES) {
      const expected = ADVISORY_POLICIES.includes(name)
        ? "advisory"
        : disabled.includes(name)
          ? "disabled"
          : "mandatory";
      expect(enforcementLevel, name).toBe(expected);
    }
    expect(ADVISORY_POLICIES.filter((name) => enforcementLevelOf(name) === undefined)).toEqual([]);
  });
});

describe("the pack's README", () => {
  it("lists every policy with its default enforcement level", () => {
    const readme = readFileSync(path.resolve(__dirname, "../../policies/README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| `([a-z0-9-]+)` +\| (mandatory|advisory|disabled) /gm)].map(
      ([, name, level]) => ({
        name,
        enforcementLevel: level,
      }),
    );
    const byName = (a: { name?: string }, b: { name?: string }) =>
      String(a.name).localeCompare(String(b.name));
    expect(rows.sort(byName)).toEqual(
      POLICIES.map(({ name, enforcementLevel }) => ({ name, enforcementLevel })).sort(byName),
    );
  });
});

describe("the served policy pack", () => {
  let pack: ServedPack;

  beforeAll(async () => {
    pack = await servePack();
  });

  afterAll(async () => {
    await pack?.close();
  });

  const drainFailure = exampleResource(
    "Proxy",
    "edge",
    specWith("Proxy", { shutdown: { drainTimeout: "60s", minimumDrainTime: "10s" } }),
  );
  const tagOnlyHttpPort = exampleResource(
    "Service",
    "web",
    specWith("Service", {
      source: { oci: { digest: null, tag: "v1.2.0" } },
      template: { spec: { backend: { protocol: "http2" } } },
    }),
  );

  it("registers as exampledev with every policy at its default enforcement level", async () => {
    expect(await pack.info()).toEqual({
      name: "exampledev",
      policies: POLICIES.map(({ name, enforcementLevel }) => ({ name, enforcementLevel })),
    });
  });

  it("blocks on a mandatory rule and only advises on a warning by default", async () => {
    await pack.configure({});
    expect(await pack.analyze(drainFailure)).toEqual([diagnostic("drain-minimum", "mandatory")]);
    expect(await pack.analyze(tagOnlyHttpPort)).toEqual([
      diagnostic("bundle-digest-pinned", "advisory"),
      diagnostic("backend-port-ignored", "advisory"),
    ]);
  });

  it("takes enforcement levels from the policy config: lowered, raised or disabled", async () => {
    await pack.configure({
      "drain-minimum": "advisory",
      "bundle-digest-pinned": "mandatory",
      "backend-port-ignored": "disabled",
    });
    expect(await pack.analyze(drainFailure)).toEqual([diagnostic("drain-minimum", "advisory")]);
    expect(await pack.analyze(tagOnlyHttpPort)).toEqual([diagnostic("bundle-digest-pinned", "mandatory")]);
  });

  it("reports nothing, not even a note that a policy could not run, for values unknown during preview", async () => {
    await pack.configure({});
    const unknownDrain = specWith("Proxy", { shutdown: { drainTimeout: "60s", minimumDrainTime: UNKNOWN } });
    expect(await pack.analyze(exampleResource("Proxy", "edge", unknownDrain))).toEqual([]);
    expect(await pack.analyze(exampleResource("Service", "web", UNKNOWN))).toEqual([]);
  });

  it("runs the stack policies over the stack's resources", async () => {
    await pack.configure({});
    const stack = [
      exampleResource("Service", "web", specWith("Service", { liveRevision: "web-v9" }), { name: "web" }),
      exampleResource("ServiceRevision", "rev-1", VALID_SPECS.ServiceRevision, { name: "web-v1" }),
      exampleResource("ServiceRevision", "rev-2", VALID_SPECS.ServiceRevision, { name: "web-v1" }),
    ];
    const reports = await pack.analyzeStack(stack);
    expect(reports.map(({ policy, enforcementLevel }) => ({ policy, enforcementLevel }))).toEqual([
      { policy: "live-revision-managed", enforcementLevel: "advisory" },
      // Both revisions that share "web-v1" are reported.
      { policy: "unique-object-names", enforcementLevel: "mandatory" },
      { policy: "unique-object-names", enforcementLevel: "mandatory" },
    ]);
  });
});
