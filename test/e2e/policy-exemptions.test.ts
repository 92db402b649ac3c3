import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestStack, type TestStack } from "../helpers/pulumi";

const pack = path.resolve(__dirname, "../../policies");
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

/** Runs `pulumi preview --policy-pack … --policy-pack-config <config>`: whether it passed, and what it printed. */
async function preview(t: TestStack, config: object) {
  const file = path.join(t.stateDir, "exemptions.json");
  writeFileSync(file, JSON.stringify(config));
  const printed: string[] = [];
  try {
    await t.stack.preview({
      policyPacks: [pack],
      policyPackConfigs: [file],
      onOutput: (line) => printed.push(line),
    });
    return { passed: true, output: printed.join("") };
  } catch (error) {
    return { passed: false, output: `${printed.join("")}\n${String(error)}` };
  }
}

/** allowed-sources made mandatory, with the given exemptions; only `breaks-allowed-sources` breaks it. */
const allowedSources = (exemptions: object[], extra: object = {}) => ({
  "allowed-sources": {
    enforcementLevel: "mandatory",
    ociRepositories: ["registry.corp.example/**"],
    gitRepositories: ["git.corp.example/**"],
    exemptions,
    ...extra,
  },
});

const EXEMPTION = {
  // By URN: the fixture leaves metadata.name to Pulumi.
  resource: "urn:pulumi:*::breaks-allowed-sources",
  reason: "vendor image until the mirror lands",
  owner: "team-web",
};

describe("policy exemptions through `pulumi preview --policy-pack … --policy-pack-config …`", () => {
  let t: TestStack;

  beforeAll(async () => {
    t = await createTestStack(path.join(__dirname, "fixtures/organisation"));
    await t.stack.setAllConfig({ recentDate: { value: day(-10) }, oldDate: { value: day(-10) } });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it("without an exemption, the mandatory violation fails the preview", async () => {
    const { passed, output } = await preview(t, allowedSources([]));
    expect(passed, output).toBe(false);
    expect(output).toMatch(
      /\[mandatory\] \[severity: high\]\s+allowed-sources\s+\(pulumi-nodejs:dynamic\/exampledev:Service: breaks-allowed-sources\)/,
    );
  });

  it("an exempted mandatory violation passes, shown as an advisory notice naming reason, owner and expiry", async () => {
    const expires = day(30);
    const { passed, output } = await preview(t, allowedSources([{ ...EXEMPTION, expires }]));
    expect(passed, output).toBe(true);
    expect(output).toMatch(
      /\[advisory\] \[severity: high\]\s+allowed-sources\s+\(pulumi-nodejs:dynamic\/exampledev:Service: breaks-allowed-sources\)/,
    );
    expect(output).toContain(
      `exempted until ${expires} (owner team-web): vendor image until the mirror lands`,
    );
    expect(output).not.toMatch(/\[mandatory\]/);
  });

  it("an expired exemption does not apply, and the violation says when it expired", async () => {
    const expires = day(-1);
    const { passed, output } = await preview(t, allowedSources([{ ...EXEMPTION, expires }]));
    expect(passed).toBe(false);
    expect(output).toMatch(/\[mandatory\] \[severity: high\]\s+allowed-sources/);
    expect(output).toContain(`its exemption expired on ${expires}`);
  });

  it("an exemption without a reason, or beyond exemptionMaxDays, is refused naming the field", async () => {
    const { reason: _, ...reasonless } = EXEMPTION;
    const missing = await preview(t, allowedSources([{ ...reasonless, expires: day(30) }]));
    expect(missing.passed).toBe(false);
    expect(missing.output).toContain(
      'policy config "allowed-sources": setting "exemptions[0].reason" is missing',
    );

    const capped = await preview(
      t,
      allowedSources([{ ...EXEMPTION, expires: day(400) }], { exemptionMaxDays: 90 }),
    );
    expect(capped.passed).toBe(false);
    expect(capped.output).toContain('setting "exemptions[0].expires"');
    expect(capped.output).toContain("more than exemptionMaxDays (90) days ahead");
  });
});
