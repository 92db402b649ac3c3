// A preview is a promise of what `pulumi up` does (issue 34), through the real CLI: a Service's revision
// outputs are unknown in a preview exactly when the change mints a revision, the pull-request report lists
// exactly the Services that mint, and `preview --refresh --diff` shows an out-of-band label as a change `up`
// undoes. The dynamic resources on both servers; the native plugin on the local server.
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { EngineEvent, OutputMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPlugin } from "../../scripts/native/plugin-install";
import { UNKNOWN } from "../../sdk/schema/sentinel";
import { BACKENDS, type Backend, type BackendName, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const REPO = path.resolve(__dirname, "../..");
const run = promisify(execFile);

/** The stack's outputs as a preview computes them (unknown ones are Pulumi's sentinel), from its engine events. */
function previewedOutputs(events: EngineEvent[]): Record<string, unknown> {
  // The stack's outputs are reported twice: as state holds them when the program starts, then as computed.
  const stack = events
    .map((event) => event.resOutputsEvent?.metadata)
    .filter((metadata) => metadata?.type === "pulumi:pulumi:Stack")
    .at(-1);
  return (stack?.new?.outputs ?? {}) as Record<string, unknown>;
}

interface Setup {
  backend: Backend;
  registry: Registry;
  t: TestStack;
}

async function setUp(backendName: BackendName, fixture: string, native: boolean): Promise<Setup> {
  const [backend, registry] = await Promise.all([startBackend(backendName), startRegistry()]);
  const digest = await pushArtifact(registry, { path: "team/app", tag: "v1", content: "bundle one" });
  const t = await createTestStack(fixture);
  if (native) installPlugin(t.env);
  await t.stack.setAllConfig({
    ...backend.config,
    // The preview asks the API (what the revisions are now); the default, set here for clarity.
    "exampledev:serverDryRun": { value: "true" },
    repo: { value: registry.repo("team/app") },
    digest: { value: digest },
  });
  return { backend, registry, t };
}

/**
 * No `destroy` first: it asserted nothing (its errors were ignored), and the server and the registry the
 * stack's objects live in stop here with them; `dispose` removes the stack from its backend as it is.
 */
async function tearDown(setup: Setup | undefined): Promise<void> {
  if (setup === undefined) return;
  await setup.t.dispose();
  await Promise.all([setup.backend.close(), setup.registry.stop()]);
}

/** The CLI as a user runs it (asynchronously: the API server runs in this process). */
async function cli(setup: Setup, args: string[]): Promise<string> {
  const { t } = setup;
  try {
    const { stdout, stderr } = await run("pulumi", [...args, "--stack", t.stack.name], {
      cwd: t.dir,
      env: { ...process.env, ...t.env, PULUMI_DEBUG_COMMANDS: "true" },
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`pulumi ${args.join(" ")} failed:\n${stdout}\n${stderr}`);
  }
}

/** The update step's part of `preview --diff` output for the resource named `name` (after the refresh steps). */
function updateStep(text: string, name: string): string {
  const steps = text.split(/\n(?=\s*[~+-]*\s*[\w:/.-]+: \()/);
  return steps.find((step) => step.includes("(update)") && step.includes(`::${name}]`)) ?? "";
}

describe.each(BACKENDS)("the preview's promise for dynamic resources, on the %s server", (backendName) => {
  let setup: Setup;
  let first: OutputMap;
  const value = (outputs: OutputMap, key: string) => outputs[key]?.value as string;

  beforeAll(async () => {
    setup = await setUp(backendName, path.join(__dirname, "fixtures/revisions"), false);
    const result = await setup.t.stack.up();
    expect(result.summary.result).toBe("succeeded");
    first = result.outputs;
  });
  afterAll(() => tearDown(setup));

  it("a label-only change keeps the revision outputs known: nothing is minted", async () => {
    await setup.t.stack.setConfig("soloTeam", { value: "ops" });
    const events: EngineEvent[] = [];
    const preview = await setup.t.stack.preview({ onEvent: (event) => events.push(event) });
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    const outputs = previewedOutputs(events);
    expect(outputs.soloLatest).toBe(value(first, "soloLatest"));
    expect(outputs.soloLive).toBe(value(first, "soloLive"));
    expect(outputs.apiLatest).toBe(value(first, "apiLatest"));
  });

  it("a change of the shared template shows its Services' revisions unknown, and the report lists exactly them", async () => {
    await setup.t.stack.setConfig("greeting", { value: "bonjour" });
    const { t } = setup;
    const events = path.join(t.stateDir, "events.jsonl");
    const previewJson = path.join(t.stateDir, "preview.json");
    const summaryFile = path.join(t.stateDir, "summary.md");
    rmSync(events, { force: true });
    const json = await cli(setup, ["preview", "--json", "--event-log", events]);
    writeFileSync(previewJson, json.slice(0, json.lastIndexOf("}") + 1));
    const log = readFileSync(events, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as EngineEvent);
    const outputs = previewedOutputs(log);
    expect(outputs.apiLatest).toBe(UNKNOWN);
    expect(outputs.apiLive).toBe(UNKNOWN);
    expect(outputs.workerLatest).toBe(UNKNOWN);
    // solo's change is its label only: still known.
    expect(outputs.soloLatest).toBe(value(first, "soloLatest"));

    await run(
      process.execPath,
      [
        path.join(REPO, "dist/policies/report/main.js"),
        ...["--preview", previewJson, "--events", events, "--summary", summaryFile],
      ],
      { cwd: setup.t.dir, env: { ...process.env, GITHUB_STEP_SUMMARY: "" } },
    );
    const summary = readFileSync(summaryFile, "utf8");
    console.log(`[preview-promise] report:\n${summary}`);
    const section = summary.slice(summary.indexOf("### Services that mint a new revision"));
    const rows = section
      .split("\n")
      .filter((line) => line.startsWith("| ") && !line.startsWith("| resource") && !line.startsWith("| ---"));
    expect(rows.map((row) => row.split("|")[1]?.trim()).sort()).toEqual(["api", "worker"]);
    for (const row of rows) expect(row).toContain("spec.template.spec.env[0].value changed");
    expect(section).not.toContain("rev-solo");

    const result = await t.stack.up();
    expect(value(result.outputs, "apiLatest")).not.toBe(value(first, "apiLatest"));
    expect(value(result.outputs, "soloLatest")).toBe(value(first, "soloLatest"));
  });

  it("`preview --refresh --diff` shows an out-of-band label as a change up undoes, and up removes it", async () => {
    await setup.t.stack.preview({ expectNoChanges: true });
    await setup.backend.client.services.patch(
      "rev-solo",
      { metadata: { labels: { "added-by": "kubectl" } } },
      { type: "merge" },
    );
    const text = await cli(setup, ["preview", "--refresh", "--diff"]);
    const step = updateStep(text, "solo");
    console.log(`[preview-promise] preview --refresh --diff, solo's update:\n${step}`);
    expect(step).toMatch(/- "added-by"\s*: "kubectl"|- added-by\s*: "kubectl"/);
    const up = await setup.t.stack.up({ refresh: true });
    expect(up.summary.result).toBe("succeeded");
    expect((await setup.backend.client.services.get("rev-solo")).metadata.labels).toEqual({ team: "ops" });
    // No spurious diffs: after up, and after a refresh without drift.
    await setup.t.stack.preview({ expectNoChanges: true });
    await setup.t.stack.refresh();
    await setup.t.stack.preview({ expectNoChanges: true });
  });
});

describe("the preview's promise for the native plugin, on the local server", () => {
  let setup: Setup;
  let first: OutputMap;
  const value = (outputs: OutputMap, key: string) => outputs[key]?.value as string;

  beforeAll(async () => {
    setup = await setUp("local", path.join(__dirname, "fixtures/native-revisions"), true);
    const result = await setup.t.stack.up();
    expect(result.summary.result).toBe("succeeded");
    first = result.outputs;
  });
  afterAll(() => tearDown(setup));

  it("revision outputs: known on a label-only change, unknown on a template change", async () => {
    await setup.t.stack.setAllConfig({ soloTeam: { value: "ops" }, greeting: { value: "bonjour" } });
    const events: EngineEvent[] = [];
    const preview = await setup.t.stack.preview({ onEvent: (event) => events.push(event) });
    expect(preview.changeSummary).toMatchObject({ update: 2 });
    const outputs = previewedOutputs(events);
    expect(outputs.soloLatest).toBe(value(first, "soloLatest"));
    expect(outputs.soloLive).toBe(value(first, "soloLive"));
    expect(outputs.apiLatest).toBe(UNKNOWN);
    expect(outputs.apiLive).toBe(UNKNOWN);
    const result = await setup.t.stack.up();
    expect(value(result.outputs, "apiLatest")).not.toBe(value(first, "apiLatest"));
    expect(value(result.outputs, "soloLatest")).toBe(value(first, "soloLatest"));
    await setup.t.stack.preview({ expectNoChanges: true });
  });

  it("`preview --refresh --diff` shows an out-of-band label as a change up undoes, and up removes it", async () => {
    await setup.backend.client.services.patch(
      "native-rev-solo",
      { metadata: { labels: { "added-by": "kubectl" } } },
      { type: "merge" },
    );
    const text = await cli(setup, ["preview", "--refresh", "--diff"]);
    const step = updateStep(text, "solo");
    console.log(`[preview-promise] native preview --refresh --diff, solo's update:\n${step}`);
    expect(step).toMatch(/- "added-by"\s*: "kubectl"|- added-by\s*: "kubectl"/);
    const up = await setup.t.stack.up({ refresh: true });
    expect(up.summary.result).toBe("succeeded");
    expect((await setup.backend.client.services.get("native-rev-solo")).metadata.labels).toEqual({
      team: "ops",
    });
    await setup.t.stack.preview({ expectNoChanges: true });
    await setup.t.stack.refresh();
    await setup.t.stack.preview({ expectNoChanges: true });
  });
});
