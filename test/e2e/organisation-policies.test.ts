import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, createClient } from "../../sdk/client";
import { type RunningServer, startServer } from "../../server";
import { createTestStack, type TestStack } from "../helpers/pulumi";

const pack = path.resolve(__dirname, "../../policies");
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);

/** Writes a policy config file into the stack's temporary directory; its path. */
function policyConfig(t: TestStack, name: string, config: object): string {
  const file = path.join(t.stateDir, name);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** Runs `pulumi preview --policy-pack … [--policy-pack-config …]`: whether it passed, and what it printed. */
async function preview(t: TestStack, config?: string) {
  const printed: string[] = [];
  try {
    await t.stack.preview({
      policyPacks: [pack],
      policyPackConfigs: config ? [config] : [],
      onOutput: (line) => printed.push(line),
    });
    return { passed: true, output: printed.join("") };
  } catch (error) {
    return { passed: false, output: `${printed.join("")}\n${String(error)}` };
  }
}

/**
 * The `[level]  policy  (type: resource)` reports of the output, as distinct "policy resource" pairs, sorted
 * (the CLI prints a report by its resource and again under `Policies:`).
 */
function reports(output: string, level: string): string[] {
  const pattern = new RegExp(
    `\\[${level}\\](?: \\[severity: \\w+\\])?\\s+([a-z0-9-]+)\\s+\\(pulumi-nodejs:dynamic/exampledev:\\w+: ([\\w-]+)\\)`,
    "g",
  );
  return [
    ...new Set([...output.matchAll(pattern)].map(([, policy, resource]) => `${policy} ${resource}`)),
  ].sort();
}

describe("organisation policies through `pulumi preview --policy-pack … --policy-pack-config …`", () => {
  let t: TestStack;

  beforeAll(async () => {
    t = await createTestStack(path.join(__dirname, "fixtures/organisation"));
    await t.stack.setAllConfig({ recentDate: { value: daysAgo(10) }, oldDate: { value: daysAgo(400) } });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it("check nothing until a policy config turns them on", async () => {
    const { passed, output } = await preview(t);
    expect(passed, output).toBe(true);
    expect(reports(output, "\\w+")).toEqual([]);
  });

  it("report exactly the resources that break them once configured, settings left out taking their defaults", async () => {
    const config = policyConfig(t, "organisation.json", {
      "allowed-sources": {
        enforcementLevel: "mandatory",
        ociRepositories: ["registry.corp.example/**"],
        gitRepositories: ["git.corp.example/**"],
      },
      "required-labels": { enforcementLevel: "mandatory", labels: { team: [], environment: ["production"] } },
      // maxAgeDays defaults to 365 days, maxTtl to 168h.
      "compatibility-date-max-age": "mandatory",
      "preview-ttl-max": "advisory",
      "proxy-telemetry-required": { enforcementLevel: "mandatory" },
    });
    const { passed, output } = await preview(t, config);
    expect(passed).toBe(false);
    expect(reports(output, "mandatory")).toEqual([
      "allowed-sources breaks-allowed-sources",
      "compatibility-date-max-age breaks-compatibility-date-max-age",
      "proxy-telemetry-required breaks-proxy-telemetry-required",
      "required-labels breaks-required-labels",
    ]);
    // A missing label and a value that is not allowed.
    expect(output).toContain("metadata.labels.team: missing");
    expect(output).toContain('metadata.labels.environment: "dev" is not allowed; use one of "production"');
    expect(reports(output, "advisory")).toEqual(["preview-ttl-max breaks-preview-ttl-max"]);
    expect(output).toContain(
      'spec.source.oci.repo: "docker.io/someone/web" matches none of allowed-sources.ociRepositories ("registry.corp.example/**")',
    );
    expect(output).toContain(`(the oldest date allowed today is "${daysAgo(365)}")`);
    expect(output).toContain('"720h" is longer than the organisation\'s maximum "168h"');
  });

  it("are refused by Pulumi, before any policy runs, when a setting is wrong, naming each wrong setting", async () => {
    const config = policyConfig(t, "wrong.json", {
      "allowed-sources": { enforcementLevel: "mandatory", ociRepositories: "registry.corp.example/**" },
      "required-labels": { enforcementLevel: "mandatory", labels: { team: "web" } },
      "compatibility-date-max-age": { enforcementLevel: "mandatory", maxAgeDays: 0 },
      "preview-ttl-max": { enforcementLevel: "mandatory", maxTtl: "one week" },
    });
    const { passed, output } = await preview(t, config);
    expect(passed).toBe(false);
    expect(output).toContain(
      "allowed-sources: ociRepositories: Invalid type. Expected: array, given: string",
    );
    expect(output).toContain("required-labels: labels.team: Invalid type. Expected: array, given: string");
    expect(output).toContain("compatibility-date-max-age: maxAgeDays: Must be greater than or equal to 1");
    expect(output).toContain("preview-ttl-max: maxTtl: Does not match pattern");
    // Refused before the pack analysed anything: no policy reported on a resource.
    expect(reports(output, "mandatory")).toEqual([]);
  });
});

describe("remediation through the real CLI", () => {
  let t: TestStack;
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await startServer({ port: 0, storage: "memory", logLevel: "warn" });
    client = createClient({ baseUrl: server.url });
    t = await createTestStack(path.join(__dirname, "fixtures/proxy"));
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      // The provider's check leaves drain-minimum to the pack, whose remediation then fixes it.
      "exampledev:deferValidationToPolicies": { value: "true" },
      apiKey: { value: "remediation-e2e-key", secret: true },
      drainTimeout: { value: "60s" },
    });
  });
  afterAll(async () => {
    await t?.dispose();
    await client?.close();
    await server?.close();
  });

  it("previews the remediated inputs, stores them with up, and previews no change after", async () => {
    const config = policyConfig(t, "remediate.json", {
      "drain-minimum": "remediate",
      "required-labels": {
        enforcementLevel: "remediate",
        labels: { team: [], environment: ["staging", "production"] },
        defaults: { team: "edge", environment: "staging" },
      },
    });
    const options = { policyPacks: [pack], policyPackConfigs: [config], diff: true };
    const printed: string[] = [];
    await t.stack.preview({ ...options, onOutput: (line) => printed.push(line) });
    const first = printed.join("");
    expect(first).toMatch(/\[remediate\]\s+drain-minimum/);
    expect(first).toMatch(/\[remediate\]\s+required-labels/);
    expect(first).toMatch(/minimumDrainTime: "60s"/);
    expect(first).toMatch(/environment: "staging"[\s\S]*team\s*: "edge"/);

    const up = await t.stack.up(options);
    expect(up.summary.result).toBe("succeeded");
    const stored = await client.proxies.get("edge");
    expect(stored.metadata.labels).toEqual({ team: "edge", environment: "staging" });
    expect(stored.spec.shutdown).toMatchObject({ drainTimeout: "60s", minimumDrainTime: "60s" });
    // The secret the remediation passed along is still a secret in state.
    const state = JSON.stringify((await t.stack.exportStack()).deployment);
    expect(state).toContain(
      '"vendorAlphaLogs":{"key":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270"',
    );

    const again = await t.stack.preview(options);
    expect(again.changeSummary).toEqual({ same: 2 });
  });
});
