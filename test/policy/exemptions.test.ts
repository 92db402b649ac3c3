import type { ResourceValidationArgs, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import {
  type Exemption,
  exemptionMatches,
  exemptionNotice,
  isExemptedReport,
  judge,
  readExemptions,
  withExemptions,
} from "../../policies/exemptions";
import { POLICIES } from "../../policies/policies";
import { exemptionsSummary } from "../../policies/report/exemptions";
import { exampleResource, specWith } from "./fixtures";
import { testUrn } from "./harness";

const ON = "2026-06-01";
const live: Exemption = {
  resource: "legacy-*",
  reason: "migrating in Q3",
  owner: "team-edge",
  expires: "2026-09-30",
};

function policy(name: string) {
  const found = POLICIES.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no policy ${name}`);
  return found;
}

/** Runs a (wrapped) resource policy the way the server does, collecting both report forms. */
async function run(
  p: ResourceValidationPolicy,
  resource: ReturnType<typeof exampleResource>,
  config: object,
) {
  const reports: unknown[] = [];
  const args = {
    type: resource.type,
    name: resource.name,
    urn: testUrn(resource.type, resource.name),
    props: resource.props,
    getConfig: () => config,
    notApplicable: () => {
      throw new Error("not applicable");
    },
  } as unknown as ResourceValidationArgs;
  const validate = p.validateResource as (args: ResourceValidationArgs, report: unknown) => Promise<void>;
  await validate(args, (message: unknown) => reports.push(message));
  return reports;
}

const breaksDrain = (name: string) =>
  exampleResource(
    "Proxy",
    name,
    specWith("Proxy", { shutdown: { drainTimeout: "60s", minimumDrainTime: "10s" } }),
    { name },
  );

describe("exemptions", () => {
  it("match a glob over metadata.name, or a URN", () => {
    expect(exemptionMatches(live, { name: "legacy-web" })).toBe(true);
    expect(exemptionMatches(live, { name: "web" })).toBe(false);
    expect(exemptionMatches({ ...live, resource: "old-?" }, { name: "old-1" })).toBe(true);
    expect(exemptionMatches({ ...live, resource: "old-?" }, { name: "old-12" })).toBe(false);
    const urn = "urn:pulumi:prod::web::pulumi-nodejs:dynamic/exampledev:Proxy::edge";
    expect(exemptionMatches({ ...live, resource: urn }, { urn })).toBe(true);
    expect(exemptionMatches({ ...live, resource: "urn:pulumi:prod::*::edge" }, { urn })).toBe(true);
    expect(exemptionMatches({ ...live, resource: "edge" }, { urn })).toBe(false);
  });

  it("exempt through their expiry day, and say when an expired one expired", () => {
    expect(judge([live], { name: "legacy-web" }, "broken", ON)).toEqual({ exempted: true, exemption: live });
    expect(judge([live], { name: "legacy-web" }, "broken", "2026-09-30").exempted).toBe(true);
    const after = judge([live], { name: "legacy-web" }, "broken", "2026-10-01");
    expect(after.exempted).toBe(false);
    expect(!after.exempted && after.message).toContain("its exemption expired on 2026-09-30");
    expect(judge([live], { name: "web" }, "broken", ON)).toEqual({ exempted: false, message: "broken" });
  });

  it("are refused without a reason, an owner or a valid expiry, naming the field", () => {
    const without = (field: keyof Exemption) => {
      const { [field]: _, ...rest } = live;
      return { exemptions: [rest] };
    };
    expect(() => readExemptions("drain-minimum", without("reason"), ON)).toThrow(
      'policy config "drain-minimum": setting "exemptions[0].reason" is missing',
    );
    expect(() => readExemptions("drain-minimum", without("owner"), ON)).toThrow(
      '"exemptions[0].owner" is missing',
    );
    expect(() => readExemptions("drain-minimum", without("expires"), ON)).toThrow(
      '"exemptions[0].expires" is missing',
    );
    expect(() => readExemptions("x", { exemptions: [{ ...live, expires: "2026-02-30" }] }, ON)).toThrow(
      "not a date: write YYYY-MM-DD",
    );
    expect(() => readExemptions("x", { exemptions: [{ ...live, team: "edge" }] }, ON)).toThrow(
      '"exemptions[0].team" is not a field of an exemption',
    );
  });

  it("are capped by exemptionMaxDays, when set", () => {
    expect(readExemptions("x", { exemptions: [live], exemptionMaxDays: 121 }, ON)).toEqual([live]);
    expect(() => readExemptions("x", { exemptions: [live], exemptionMaxDays: 30 }, ON)).toThrow(
      '"exemptions[0].expires" is 2026-09-30, more than exemptionMaxDays (30) days ahead of 2026-06-01',
    );
  });

  it("turn a rule policy's violation into an advisory notice naming reason, owner and expiry", async () => {
    const drain = policy("drain-minimum") as ResourceValidationPolicy;
    expect(drain.configSchema?.properties.exemptions).toBeDefined();
    const config = { exemptions: [{ ...live, expires: "2999-01-01" }] };
    const [report] = await run(drain, breaksDrain("legacy-edge"), config);
    expect(isExemptedReport(report)).toBe(true);
    expect(report).toMatchObject({ enforcementLevel: "advisory" });
    expect((report as { message: string }).message).toContain(
      "exempted until 2999-01-01 (owner team-edge): migrating in Q3; the violation: Proxy",
    );
    const [other] = await run(drain, breaksDrain("edge"), config);
    expect(typeof other).toBe("string");
  });

  it("report an expired exemption's violation as a violation that says it expired", async () => {
    const drain = policy("drain-minimum") as ResourceValidationPolicy;
    const [report] = await run(drain, breaksDrain("legacy-edge"), {
      exemptions: [{ ...live, expires: "2020-01-01" }],
    });
    expect(typeof report).toBe("string");
    expect(report).toContain("its exemption expired on 2020-01-01");
  });

  it("apply to organisation policies beside their settings, and to stack policies", async () => {
    const labels = policy("required-labels") as ResourceValidationPolicy;
    const reports = await run(labels, breaksDrain("legacy-edge"), {
      labels: { team: [] },
      exemptions: [{ ...live, expires: "2999-01-01" }],
    });
    expect(reports.map(isExemptedReport)).toEqual([true]);

    const stack = withExemptions(
      {
        name: "s",
        description: "d",
        enforcementLevel: "mandatory",
        validateStack: ({ resources }, report) => {
          for (const resource of resources) report("bad", resource.urn);
        },
      } satisfies StackValidationPolicy,
      () => ON,
    );
    const resources = ["legacy-a", "b"].map((name) => ({
      urn: `urn:${name}`,
      props: { metadata: { name } },
    }));
    const seen: unknown[] = [];
    await stack.validateStack(
      { resources, getConfig: () => ({ exemptions: [live] }) } as never,
      (message: unknown) => seen.push(message),
    );
    expect(seen.map(isExemptedReport)).toEqual([true, false]);
  });
});

describe("the pull-request report's exemptions section", () => {
  it("lists each exempted violation the preview reported, with reason, owner and expiry", () => {
    const message = `description\n${exemptionNotice('Proxy "edge": spec.x: bad', live)}`;
    const text = exemptionsSummary([
      { source: "drain-minimum", level: "advisory", urn: "urn:pulumi:s::p::t::edge", message },
      { source: "drain-minimum", level: "mandatory", urn: "urn:pulumi:s::p::t::other", message: "bad" },
    ]);
    expect(text).toContain("| `drain-minimum` | edge |  | 2026-09-30 | team-edge | migrating in Q3 |");
    expect(text).not.toContain("other");
    expect(exemptionsSummary([])).toContain("No violation was exempted.");
  });
});
