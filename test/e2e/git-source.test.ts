// A git-sourced Service through the real Pulumi CLI, with examples/git-source as the program: the server
// builds real commits of a real repository into the real registry. up waits for the first build and
// exports its revision and commit; a new commit (webhook) is a new revision that refresh brings into
// state; a branch is a preview Service that is no drift; a build that fails fails up with its message and
// the object stays in state; destroy removes the Service and, by cascade, its previews.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, createClient } from "../../sdk/client";
import { type RunningServer, startServer } from "../../server";
import { TestRepo } from "../helpers/git";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { type Registry, startRegistry } from "../helpers/registry";
import { repoRoot } from "./repo-copy";

const SERVICE = "git-e2e";
const APP = (greeting: string) =>
  `export default { fetch: () => new Response(${JSON.stringify(greeting)}) };\n`;
const WAIT_MS = 120_000;

// biome-ignore lint/suspicious/noExplicitAny: state and status are JSON read field by field
type Json = any;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * examples/git-source in a temporary directory of its own, so that the stack's settings file never lands in the
 * working tree: only the example (not a copy of the whole repository, a second of CPU), its packages reached
 * through a link to the repository's node_modules, where `@exampledev/pulumi` is the repository's own build.
 */
function exampleCopy(): { dir: string; dispose(): void } {
  const root = mkdtempSync(path.join(tmpdir(), "exampledev-git-source-"));
  const dir = path.join(root, "git-source");
  cpSync(path.join(repoRoot, "examples/git-source"), dir, {
    recursive: true,
    filter: (source) =>
      !/^Pulumi\..+\.yaml$/.test(path.basename(source)) && path.basename(source) !== "app-repo",
  });
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  return { dir, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

describe("a git-sourced Service through the real Pulumi CLI", () => {
  let copy: { dir: string; dispose(): void };
  let server: RunningServer;
  let client: Client;
  let registry: Registry;
  let repo: TestRepo;
  let t: TestStack;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  beforeAll(async () => {
    copy = exampleCopy();
    [server, registry] = await Promise.all([
      // Polling off: the webhook is what tells the server about new commits here.
      startServer({ port: 0, storage: "memory", logLevel: "warn", git: { pollIntervalMs: 0 } }),
      startRegistry(),
    ]);
    client = createClient({ baseUrl: server.url });
    repo = TestRepo.create("e2e");
    repo.commit({ "index.js": APP("hello from main") });
    // The program as the example's README runs it, without ts-node's type-check on each run (seconds of CPU
    // for each of the three runs of the program): readme-commands.test.ts and git-private.test.ts run this same
    // index.ts with the check, and nothing here depends on it.
    t = await createTestStack(copy.dir, { env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" } });
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      gitUrl: { value: repo.url },
      outputRepo: { value: registry.repo("e2e/git-app") },
      serviceName: { value: SERVICE },
    });
  });

  afterAll(async () => {
    await t?.dispose();
    await client?.close();
    await Promise.all([server?.close(), registry?.stop()]);
    repo?.remove();
    copy?.dispose();
  });

  /** Tells the server about a push, as a forge's webhook would. */
  async function push(): Promise<void> {
    const response = await fetch(`${server.url}/hooks/git`, {
      method: "POST",
      headers: { "x-github-event": "push", "content-type": "application/json" },
      body: JSON.stringify({ ref: "refs/heads/main", repository: { clone_url: repo.url } }),
    });
    expect(response.status).toBe(202);
    expect(((await response.json()) as Json).matched).toContain(SERVICE);
  }

  /** The Service's outputs as the stack's state holds them. */
  async function stateOf(name: string): Promise<Json> {
    const { deployment } = await t.stack.exportStack();
    const resource = (deployment.resources as Json[]).find(
      (r) => r.type.endsWith(":Service") && r.outputs?.metadata?.name === name,
    );
    return resource?.outputs;
  }

  let firstRevision: string;

  it("up waits for the first build and exports the minted revision and the built commit", async () => {
    const started = Date.now();
    const { outputs, summary } = await t.stack.up({ onOutput });
    console.log(`up of a git-sourced Service (fetch, package, push, mint): ${Date.now() - started} ms`);
    expect(summary.result).toBe("succeeded");
    firstRevision = outputs.latestRevision?.value;
    expect(firstRevision).toMatch(new RegExp(`^${SERVICE}-[0-9a-f]{10}$`));
    const lastBuild = outputs.lastBuild?.value;
    expect(lastBuild).toEqual({
      phase: "Succeeded",
      branch: "main",
      commit: repo.head(),
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    // The revision runs what the build pushed (API-SPEC rule 2).
    const revision = await client.serviceRevisions.get(firstRevision);
    expect(revision.spec.bundle).toMatchObject({
      repo: registry.repo("e2e/git-app"),
      digest: lastBuild.digest,
    });
    expect(outputs.previews?.value).toEqual([]);
  });

  it("a new commit on main mints a new revision, which refresh brings into state", async () => {
    const commit = repo.commit({ "index.js": APP("hello again") });
    const pushed = Date.now();
    await push();
    const status = await until("the build of the new commit", async () => {
      const { status } = await client.services.get(SERVICE);
      return status?.lastBuild?.commit === commit && status.latestRevision !== firstRevision
        ? status
        : undefined;
    });
    console.log(`commit -> webhook -> revision minted: ${Date.now() - pushed} ms`);
    expect(status.lastBuild).toMatchObject({ phase: "Succeeded", commit });

    // The status moved, the spec did not: refresh records the new outputs and reports no drift.
    await t.stack.refresh({ onOutput, expectNoChanges: true });
    const state = await stateOf(SERVICE);
    expect(state.status.latestRevision).toBe(status.latestRevision);
    expect(state.status.lastBuild).toMatchObject({ phase: "Succeeded", branch: "main", commit });
  });

  it("a branch gets a preview Service that is neither drift nor a change of the stack", async () => {
    repo.checkout("feature/greeting");
    const commit = repo.commit({ "index.js": APP("hello from a branch") });
    repo.checkout("main");
    const pushed = Date.now();
    await push();
    const preview = await until("the branch's preview Service with a revision", async () => {
      const parent = await client.services.get(SERVICE);
      const listed = parent.status?.previews?.find((p: Json) => p.branch === "feature/greeting");
      if (!listed) return undefined;
      const service = await client.services.get(listed.name);
      return service.status?.latestRevision ? service : undefined;
    });
    console.log(`branch push -> preview Service minted: ${Date.now() - pushed} ms`);
    expect(preview.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Service", name: SERVICE, controller: true }),
    ]);
    expect(preview.status?.lastBuild).toMatchObject({ branch: "feature/greeting", commit });

    await t.stack.refresh({ onOutput, expectNoChanges: true });
    const { changeSummary } = await t.stack.preview({ onOutput });
    expect(Object.keys(changeSummary)).toEqual(["same"]);
    // The parent's state lists the preview in its status; its inputs are untouched.
    expect((await stateOf(SERVICE)).status.previews).toEqual([
      expect.objectContaining({ name: preview.metadata.name, branch: "feature/greeting" }),
    ]);
  });

  it("destroy deletes the Service and, by cascade, its preview", async () => {
    await t.stack.destroy({ onOutput });
    await until("no Services left", async () =>
      (await client.services.listAll()).length === 0 ? true : undefined,
    );
  });

  it("a build that fails fails up with the build's message, and the object stays in state", async () => {
    await t.stack.setConfig("rootDir", { value: "no-such-dir" });
    const failed = await t.stack.up({ onOutput }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failed?.message).toContain(
      `Service "${SERVICE}" was written but did not become ready: the build of commit ${repo.head().slice(0, 12)} of branch "main" failed: spec.source.git.build.rootDir "no-such-dir"`,
    );
    // The Service exists on the server and in state, so the next up or destroy finds it.
    const status = (await client.services.get(SERVICE)).status;
    expect(status?.lastBuild).toMatchObject({ phase: "Failed", branch: "main" });
    expect((await stateOf(SERVICE))?.spec.source.git.build.rootDir).toBe("no-such-dir");
    await t.stack.destroy({ onOutput });
    expect(await client.services.listAll()).toEqual([]);
  });
});
