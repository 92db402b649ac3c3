// Pulumi's policy exceptions (a version-2 `--policy-pack-config`, issue 46) with the pack, through the real CLI
// on the local server: a live exception exempts a mandatory violation at `up`, and the CLI, the pull-request
// report, the audit and `pulumi policy analyze` all show it exempted with its ID and reason; an expired one
// fails the preview and says it expired; a wrong entry is refused naming it.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Backend, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const PACK = path.resolve(__dirname, "../../policies");
const REPORT = path.resolve(__dirname, "../../dist/policies/report/main.js");
const NODE = path.resolve(__dirname, "../../node_modules/.bin/node");
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const REASON = "vendor image until the mirror lands";
/** A child's exit status and output, without blocking this process (the local server runs in it). */
function spawned(command: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Every policy pack config the documentation shows: the JSON blocks of docs/policy-pack.md, the examples' files. */
function documentedConfigs(): [string, string][] {
  const repo = path.resolve(__dirname, "../..");
  const page = readFileSync(path.join(repo, "docs/policy-pack.md"), "utf8");
  const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((match, index): [string, string] => [
    `docs/policy-pack.md, JSON block ${index + 1}`,
    match[1] ?? "",
  ]);
  const example = "examples/pull-request-workflow/policy-config.json";
  return [...blocks, [example, readFileSync(path.join(repo, example), "utf8")]];
}

const ALLOWED_SOURCES = { enforcementLevel: "mandatory", ociRepositories: ["registry.corp.example/**"] };

describe("Pulumi's policy exceptions with the pack, the report, the audit and `pulumi policy analyze`", () => {
  let backend: Backend;
  let registry: Registry;
  let t: TestStack;
  let urn: string;
  const file = (name: string) => path.join(t.stateDir, name);

  /** A version-2 config: allowed-sources mandatory, and exception EXC-1 for the Service with `fields`. */
  const withException = (fields: object, policies: object = { "allowed-sources": ALLOWED_SOURCES }) => {
    const exception = {
      reason: REASON,
      match: [{ policies: ["allowed-sources"], targets: [urn] }],
      ...fields,
    };
    writeFileSync(
      file("config.json"),
      JSON.stringify({ version: 2, policies, exceptions: { "EXC-1": exception } }),
    );
    return file("config.json");
  };

  /** The pinned CLI, as a CI job runs it: its exit status and everything it printed. */
  const pulumi = async (args: string[]) => {
    // `policy analyze --file` judges an export and takes no stack.
    const stack = args.includes("--file") ? [] : ["--stack", t.stack.name];
    const run = await spawned("pulumi", [...args, ...stack, "--non-interactive"], {
      cwd: t.dir,
      // --event-log, which the pull-request report reads, needs PULUMI_DEBUG_COMMANDS (as the workflow sets it).
      env: { ...process.env, ...t.env, PULUMI_DEBUG_COMMANDS: "true" },
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  };
  const withPack = (config: string) => ["--policy-pack", PACK, "--policy-pack-config", config];

  const report = (args: string[]) =>
    spawned(NODE, [REPORT, ...args], { env: { ...process.env, EXAMPLEDEV_TOKEN: "" } });
  const audit = (config: string) =>
    report([
      "audit",
      "--base-url",
      backend.config["exampledev:baseUrl"]?.value ?? "",
      "--policy-pack-config",
      config,
      "--stack-state",
      file("state.json"),
      "--format",
      "json",
    ]);
  const summaryOf = async (config: string, events: string) => {
    writeFileSync(file("preview.json"), JSON.stringify({ steps: [] }));
    writeFileSync(file("summary.md"), "");
    const run = await report([
      "--preview",
      file("preview.json"),
      "--events",
      events,
      "--policy-pack-config",
      config,
      "--summary",
      file("summary.md"),
    ]);
    expect(run.status, run.stderr).toBe(0);
    return { annotations: run.stdout, summary: readFileSync(file("summary.md"), "utf8") };
  };

  beforeAll(async () => {
    [backend, registry] = await Promise.all([startBackend("local"), startRegistry()]);
    const digest = await pushArtifact(registry, { path: "vendor/web", tag: "v1", content: "vendor bundle" });
    t = await createTestStack(path.join(__dirname, "fixtures/exceptions"));
    await t.stack.setAllConfig({
      ...backend.config,
      repo: { value: registry.repo("vendor/web") },
      digest: { value: digest },
    });
    urn = `urn:pulumi:${t.stack.name}::exceptions::pulumi-nodejs:dynamic/exampledev:Service::vendor`;
  });
  afterAll(async () => {
    await t?.dispose();
    await Promise.all([backend?.close(), registry?.stop()]);
  });

  it("a live exception exempts the mandatory violation at up: the CLI shows it exempted with its ID and reason", async () => {
    const config = withException({ owner: "team-web", expires: day(30) });
    const events = file("up-events.jsonl");
    const run = await pulumi([
      "up",
      "--yes",
      "--skip-preview",
      "--show-policy-exceptions",
      "--event-log",
      events,
      ...withPack(config),
    ]);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toMatch(/\[exempted\] \[mandatory\] \[severity: high\]\s+allowed-sources/);
    expect(run.output).toContain(`EXC-1: ${REASON}`);
    const violation = readFileSync(events, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line).policyEvent)
      .find((event) => event?.policyName === "allowed-sources");
    expect(violation).toMatchObject({ severity: "high", exceptions: [{ id: "EXC-1", reason: REASON }] });
    expect(violation.message).toContain("docs/reference.md#allowed-sources");

    const { annotations, summary } = await summaryOf(config, events);
    expect(annotations).toMatch(/^::notice .*allowed-sources \[exempted\]/m);
    expect(summary).toContain(
      `| \`allowed-sources\` | vendor | \`EXC-1\` | ${day(30)} | team-web | ${REASON} |`,
    );
  });

  it("the audit of the live API, with the stack's export for the URNs, shows the Service exempted by EXC-1", async () => {
    expect((await pulumi(["stack", "export", "--file", file("state.json")])).status).toBe(0);
    const run = await audit(withException({ owner: "team-web", expires: day(30) }));
    // The revision the controller minted is not a resource of the stack, so no exception can name it.
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.violations).toEqual([
      expect.objectContaining({ policy: "allowed-sources", kind: "ServiceRevision", level: "mandatory" }),
    ]);
    expect(result.exemptions).toEqual([
      expect.objectContaining({
        policy: "allowed-sources",
        kind: "Service",
        exception: "EXC-1",
        reason: REASON,
        owner: "team-web",
      }),
    ]);
  });

  it("`pulumi policy analyze` judges the stack's state and an export: exempted, or failing on the mandatory violation", async () => {
    const exempted = await pulumi(["policy", "analyze", ...withPack(withException({ expires: day(30) }))]);
    expect(exempted.status, exempted.output).toBe(0);
    expect(exempted.output).toMatch(/\[exempted\] \[mandatory\] \[severity: high\]\s+allowed-sources/);

    writeFileSync(file("plain.json"), JSON.stringify({ "allowed-sources": ALLOWED_SOURCES }));
    const failing = await pulumi(["policy", "analyze", ...withPack(file("plain.json"))]);
    expect(failing.status, failing.output).not.toBe(0);
    expect(failing.output).toMatch(/\[mandatory\] \[severity: high\]\s+allowed-sources/);
    expect(failing.output).toContain('Service "vendor"');

    const fromFile = await pulumi([
      "policy",
      "analyze",
      "--file",
      file("state.json"),
      "--json",
      ...withPack(file("plain.json")),
    ]);
    expect(fromFile.status, fromFile.output).not.toBe(0);
    expect(fromFile.output).toContain("allowed-sources");
  });

  it("an expired exception fails the preview and says it expired; the report and the audit count the violation", async () => {
    const expires = day(-1);
    const config = withException({ owner: "team-web", expires });
    const events = file("expired-events.jsonl");
    const run = await pulumi(["preview", "--event-log", events, ...withPack(config)]);
    expect(run.status, run.output).not.toBe(0);
    expect(run.output).toMatch(/\[mandatory\] \[severity: high\]\s+policy-exceptions/);
    expect(run.output).toContain(`policy exception "EXC-1" (owner team-web) expired on ${expires}`);

    const { summary } = await summaryOf(config, events);
    expect(summary).toMatch(/\| mandatory \| `allowed-sources` \| vendor \|.*expired on/);
    expect(summary).toContain("No violation was exempted.");

    const audited = await audit(config);
    expect(audited.status, audited.stderr).toBe(1);
    expect(JSON.parse(audited.stdout).violations[0].message).toContain(
      `(its policy exception "EXC-1" (owner team-web) expired on ${expires})`,
    );
  });

  it("a wrong entry is refused naming it: a policy the pack does not have, and a file that mixes exemptions in", async () => {
    writeFileSync(
      file("unknown.json"),
      JSON.stringify({
        version: 2,
        exceptions: {
          "EXC-2": { reason: REASON, match: [{ policies: ["allowed-source"], targets: [urn] }] },
        },
      }),
    );
    const unknown = await pulumi(["preview", ...withPack(file("unknown.json"))]);
    expect(unknown.status, unknown.output).not.toBe(0);
    expect(unknown.output).toContain(
      'exceptions.EXC-2.match[0].policies names "allowed-source", which is not a policy of the pack',
    );

    const exemption = { resource: "vendor-*", reason: REASON, owner: "team-web", expires: day(10) };
    const mixed = withException({}, { "allowed-sources": { ...ALLOWED_SOURCES, exemptions: [exemption] } });
    const run = await pulumi(["preview", ...withPack(mixed)]);
    expect(run.status, run.output).not.toBe(0);
    expect(run.output).toContain(
      "policies.allowed-sources.exemptions mixes the pack's exemptions with Pulumi's exceptions",
    );
    const audited = await audit(mixed);
    expect(audited.status).toBe(2);
    expect(audited.stderr).toContain("policies.allowed-sources.exemptions mixes");
  });

  it("the CLI's own validation of a config (policy analyze on an export) accepts every documented config and refuses a wrong one naming the field", async () => {
    writeFileSync(
      file("wrong.json"),
      JSON.stringify({ "allowed-sources": { ociRepositories: "registry.corp.example/**" } }),
    );
    const wrong = await pulumi([
      "policy",
      "analyze",
      "--file",
      file("state.json"),
      ...withPack(file("wrong.json")),
    ]);
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toMatch(/ociRepositories/);
    expect(wrong.output).toMatch(/Invalid type|validat/i);
    for (const [where, text] of documentedConfigs()) {
      writeFileSync(file("documented.json"), text);
      const run = await pulumi([
        "policy",
        "analyze",
        "--file",
        file("state.json"),
        ...withPack(file("documented.json")),
      ]);
      expect(run.output, where).not.toMatch(/Invalid type|validating policy|error: .*config/i);
      expect(run.output, where).toMatch(/Policies:|nothing to analyze|exampledev@/);
    }
  });
});
