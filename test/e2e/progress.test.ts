// What the person running `pulumi up` and `pulumi destroy` sees while the native plugin waits, through the real
// CLI and the plugin installed with `pulumi plugin install`: a git-sourced Service's build (its branch and
// commit) as the resource's status line while `up` waits, and a Proxy's drain while `destroy` waits; what the
// wait ended with once, in the resource's diagnostics.
import path from "node:path";
import type { DiagnosticEvent, EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPlugin } from "../../scripts/native/plugin-install";
import { NATIVE_TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { type RunningServer, startServer } from "../../server";
import { TestRepo } from "../helpers/git";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { type Registry, startRegistry } from "../helpers/registry";

const fixture = path.join(__dirname, "fixtures/progress");
/** Long enough for a few status lines (one a second at most). */
const BUILD_SECONDS = 3;
const DRAIN_MS = 3_000;
const urn = (kind: keyof typeof NATIVE_TYPE_TOKENS, name: string) =>
  `urn:pulumi:e2e::progress::${NATIVE_TYPE_TOKENS[kind]}::${name}`;

/** A run's printed output and its diagnostic events. */
async function run(
  operation: (hooks: { onOutput(line: string): void; onEvent(event: EngineEvent): void }) => Promise<unknown>,
) {
  const printed: string[] = [];
  const diagnostics: DiagnosticEvent[] = [];
  await operation({
    onOutput: (line) => printed.push(line),
    onEvent: (event) => {
      if (event.diagnosticEvent) diagnostics.push(event.diagnosticEvent);
    },
  });
  return { output: printed.join(""), diagnostics };
}

describe("progress while the native plugin waits", () => {
  let server: RunningServer;
  let registry: Registry;
  let repo: TestRepo;
  let commit: string;
  let t: TestStack;

  beforeAll(async () => {
    [server, registry] = await Promise.all([
      startServer({
        port: 0,
        storage: "memory",
        logLevel: "warn",
        proxyDeletionGraceMs: DRAIN_MS,
        git: { pollIntervalMs: 0, buildCommands: true },
      }),
      startRegistry(),
    ]);
    repo = TestRepo.create("progress");
    commit = repo.commit({ "index.js": "export default { fetch: () => new Response('hi') };\n" });
    t = await createTestStack(fixture);
    installPlugin(t.env);
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      gitUrl: { value: repo.url },
      outputRepo: { value: registry.repo("progress/app") },
      buildSeconds: { value: String(BUILD_SECONDS) },
    });
  });

  afterAll(async () => {
    await t?.stack.destroy().catch(() => undefined);
    await t?.dispose();
    await Promise.all([server?.close(), registry?.stop()]);
    repo?.remove();
  });

  it("up shows the build of the commit while it waits, and what was minted once", async () => {
    const { output, diagnostics } = await run((hooks) => t.stack.up(hooks));
    console.log(`[progress e2e] up printed:\n${output}`);
    const short = commit.slice(0, 7);
    const service = urn("Service", "app");
    const status = diagnostics.filter((event) => event.ephemeral && event.urn === service);
    const building = new RegExp(`^building main@${short} \\(\\d+s\\)$`);
    // Status lines on the Service's row: the build with its branch and commit among them.
    expect(status.some((event) => building.test(event.message.trim()))).toBe(true);
    expect(output).toMatch(new RegExp(`Service app creating \\(\\d+s\\) building main@${short} \\(\\d+s\\)`));
    // At most about one a second: the build took BUILD_SECONDS.
    expect(status.length).toBeLessThanOrEqual(BUILD_SECONDS + 4);
    // The outcome once, kept: in the summary's diagnostics under the Service.
    const outcome = diagnostics.filter((event) => !event.ephemeral && event.urn === service);
    expect(outcome).toHaveLength(1);
    expect(outcome[0]?.severity).toBe("info");
    const minted = new RegExp(
      `built main@${short}; minted progress-app-[0-9a-f]{10}; live progress-app-[0-9a-f]{10}`,
    );
    expect(outcome[0]?.message).toMatch(minted);
    const summary = output.slice(output.indexOf("Diagnostics:"));
    expect(summary).toMatch(minted);
    // The Proxy's create waits only for the controller to report it Ready: status lines, when the first look
    // came before the controller's write, and nothing kept in the summary.
    const onProxy = diagnostics.filter((event) => event.urn === urn("Proxy", "edge"));
    expect(onProxy.filter((event) => !event.ephemeral)).toEqual([]);
  });

  it("destroy shows the Proxy's drain while it waits, and how long it drained", async () => {
    const { output, diagnostics } = await run((hooks) => t.stack.destroy(hooks));
    console.log(`[progress e2e] destroy printed:\n${output}`);
    const proxy = urn("Proxy", "edge");
    const status = diagnostics.filter((event) => event.ephemeral && event.urn === proxy);
    expect(status.length).toBeGreaterThan(0);
    // The line counts the drain since the mark, and names what ends it.
    const draining =
      /^draining for [0-4]s \(the controller removes core\.example\.dev\/drain once the drain is over\)$/;
    expect(status.every((event) => draining.test(event.message.trim()))).toBe(true);
    expect(output).toMatch(/Proxy edge deleting \(\d+s\) draining for [0-4]s/);
    const outcome = diagnostics.filter((event) => !event.ephemeral && event.urn === proxy);
    expect(outcome.map((event) => event.message.trim())).toEqual([
      expect.stringMatching(/^drained for \d+s; deleted$/),
    ]);
  });
});
