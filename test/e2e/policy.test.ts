import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POLICIES } from "../../policies/policies";
import { anchors } from "../helpers/markdown";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { copyRepository, type RepoCopy } from "./repo-copy";

const pack = path.resolve(__dirname, "../../policies");
// The policies a resource can break: policy-exceptions judges the config file's exceptions, not a resource.
const named = (level: string) =>
  POLICIES.filter((p) => p.enforcementLevel === level && !p.tags?.includes("policy-config")).map(
    (p) => p.name,
  );

describe("the policy pack through `pulumi preview --policy-pack`", () => {
  let t: TestStack;
  // The stack's config file goes into the example's folder: a copy, never the real examples/.
  let copy: RepoCopy;

  beforeAll(async () => {
    copy = copyRepository("policy");
    // ts-node type-checks the example once, in the first preview (`typeCheck`); the others only transpile it
    // (seconds of CPU a preview), as for the fixtures. readme-commands.test.ts previews it as a user does too.
    t = await createTestStack(path.join(copy.dir, "examples/policy-violations"), {
      env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
    });
    // The pack reports every violation of the stack at once; the provider's check would stop at the first.
    await t.stack.setConfig("exampledev:deferValidationToPolicies", { value: "true" });
  });
  afterAll(async () => {
    await t?.dispose();
    copy?.dispose();
  });

  /**
   * Runs the preview with `fixed`/`violate` set; returns whether it passed and everything the CLI printed.
   * `typeCheck`: ts-node type-checks the example in this run.
   */
  async function preview(
    config: { fixed?: boolean; violate?: string[] },
    policyPackConfig?: object,
    { typeCheck = false } = {},
  ) {
    const { envVars } = t.stack.workspace;
    envVars.PULUMI_NODEJS_TRANSPILE_ONLY = String(!typeCheck);
    if (config.fixed) await t.stack.setConfig("fixed", { value: "true" });
    for (const [index, policy] of (config.violate ?? []).entries()) {
      await t.stack.setConfig(`violate[${index}]`, { value: policy }, true);
    }
    const printed: string[] = [];
    const policyPackConfigs: string[] = [];
    if (policyPackConfig) {
      const file = path.join(t.stateDir, "policy-config.json");
      writeFileSync(file, JSON.stringify(policyPackConfig));
      policyPackConfigs.push(file);
    }
    try {
      await t.stack.preview({
        policyPacks: [pack],
        policyPackConfigs,
        onOutput: (line) => printed.push(line),
      });
      return { passed: true, output: printed.join("") };
    } catch (error) {
      return { passed: false, output: `${printed.join("")}\n${String(error)}` };
    } finally {
      envVars.PULUMI_NODEJS_TRANSPILE_ONLY = "true";
      for (const key of Object.keys(config)) await t.stack.removeConfig(key);
    }
  }

  /**
   * The stack breaking drain-minimum (mandatory) and bundle-digest-pinned (advisory), previewed as it is and
   * with drain-minimum lowered to advisory: what the advisory test and the lowering test read, two previews
   * where they took three (the advisory one alone was a third). Run once, by whichever test comes first.
   */
  let advisoryRuns: Promise<Record<"strict" | "lowered", { passed: boolean; output: string }>> | undefined;
  const advisory = () => {
    advisoryRuns ??= (async () => {
      const broken = { violate: ["drain-minimum", "bundle-digest-pinned"] };
      const strict = await preview(broken);
      const lowered = await preview(broken, { "drain-minimum": "advisory" });
      return { strict, lowered };
    })();
    return advisoryRuns;
  };

  /** The report of one policy on the resource named after it: level, name, then the message with the path. */
  const reported = (output: string, level: string, policy: string) =>
    new RegExp(
      `\\[${level}\\](?: \\[severity: \\w+\\])?\\s+${policy}\\s+\\(pulumi-nodejs:dynamic/exampledev:\\w+: ${policy}\\)\\n.*\\n\\s+\\w+ "${policy}": (spec|metadata)\\.\\S+: `,
    ).test(output);

  it("fails on a stack that breaks every mandatory rule once, naming each rule and its field path", async () => {
    const { passed, output } = await preview({}, undefined, { typeCheck: true });
    expect(passed).toBe(false);
    const missing = named("mandatory").filter((policy) => !reported(output, "mandatory", policy));
    expect(missing).toEqual([]);
  });

  it("previews clean once the same stack is fixed", async () => {
    const { passed, output } = await preview({ fixed: true });
    expect(passed).toBe(true);
    expect(output).not.toMatch(/\[(mandatory|advisory)\]/);
  });

  it("warns without failing on an advisory violation", async () => {
    const { strict, lowered } = await advisory();
    // Reported at its own level with no policy config, and a preview whose violations are all advisory passes.
    expect(reported(strict.output, "advisory", "bundle-digest-pinned")).toBe(true);
    expect(lowered.passed).toBe(true);
    expect(reported(lowered.output, "advisory", "bundle-digest-pinned")).toBe(true);
  });

  it("passes when the policy config lowers the violated rule to advisory", async () => {
    const { strict, lowered } = await advisory();
    expect(strict.passed).toBe(false);
    expect(reported(strict.output, "mandatory", "drain-minimum")).toBe(true);

    expect(lowered.passed).toBe(true);
    expect(reported(lowered.output, "advisory", "drain-minimum")).toBe(true);
  });

  it("annotates each violation on the line of the example's program that declares its resource", () => {
    const project = path.join(copy.dir, "examples/policy-violations");
    const previewJson = path.join(t.stateDir, "preview.json");
    const events = path.join(t.stateDir, "events.jsonl");
    // What the pull-request workflow runs: --event-log needs PULUMI_DEBUG_COMMANDS.
    const preview = spawnSync(
      "pulumi",
      ["preview", "--stack", t.stack.name, "--json", "--event-log", events, "--policy-pack", pack],
      { cwd: project, env: { ...process.env, ...t.env, PULUMI_DEBUG_COMMANDS: "true" }, maxBuffer: 64 << 20 },
    );
    expect(preview.status, String(preview.stderr)).toBe(1);
    writeFileSync(previewJson, preview.stdout);
    const report = execFileSync(
      process.execPath,
      [
        path.join(copy.dir, "dist/policies/report/main.js"),
        ...["--preview", previewJson, "--events", events, "--repository-root", copy.dir],
      ],
      { cwd: project, encoding: "utf8", env: { ...process.env, GITHUB_STEP_SUMMARY: "" } },
    );

    // Each resource of the example is declared on the line that names it: `service("name", …` or `new Kind("name", …`.
    const declared = new Map<string, number>();
    for (const [index, line] of readFileSync(path.join(project, "index.ts"), "utf8").split("\n").entries()) {
      const name = /(?:\bservice|new (?:Proxy|Service|ServiceRevision))\("([^"]+)"/.exec(line)?.[1];
      if (name !== undefined) declared.set(name, index + 1);
    }
    const annotations = [
      ...report.matchAll(
        /^::(error|warning) file=([^,]+),line=(\d+),col=\d+,title=([a-z0-9-]+) \[(\w+)\] on ([\w-]+)::/gm,
      ),
    ];
    const placed = annotations.map(([, , file, line, , , resource]) => ({
      resource,
      file,
      line: Number(line),
    }));
    expect(placed.length).toBeGreaterThanOrEqual(named("mandatory").length + named("advisory").length);
    for (const { resource = "", file, line } of placed) {
      expect({ resource, file, line }).toEqual({
        resource,
        file: "examples/policy-violations/index.ts",
        line: declared.get(resource),
      });
    }
    // Every policy the stack breaks is annotated, at its level: mandatory ones fail the check.
    const levels = new Map(
      annotations.map(([, command, , , policy, level]) => [policy, `${command} ${level}`]),
    );
    for (const policy of named("mandatory")) expect(levels.get(policy), policy).toBe("error mandatory");
    for (const policy of named("advisory")) expect(levels.get(policy), policy).toBe("warning advisory");

    // Pulumi's policy metadata: the engine's event of each violation carries the policy's severity (3.276
    // carries neither remediationSteps nor url into events or --json), and the pack's message its fix and a
    // URL that resolves to the policy's heading in docs/reference.md.
    const violations = readFileSync(events, "utf8")
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => JSON.parse(line).policyEvent ?? []);
    expect(violations.length).toBeGreaterThanOrEqual(placed.length);
    const referenceAnchors = anchors(readFileSync(path.join(copy.dir, "docs/reference.md"), "utf8"));
    for (const { policyName, severity, message } of violations) {
      const policy = POLICIES.find(({ name }) => name === policyName);
      expect(severity, policyName).toBe(policy?.severity);
      expect(message).toContain(`How to fix: ${policy?.remediationSteps}`);
      const url = new URL(/Reference: (\S+)/.exec(message)?.[1] ?? "");
      expect(url.href.split("#")[0]).toMatch(/\/blob\/main\/docs\/reference\.md$/);
      expect(referenceAnchors.has(url.hash.slice(1)), url.href).toBe(true);
    }
  });
});
