// The oldest end of the package's @pulumi/pulumi range (issue 46): a new program on the packed package with that
// exact SDK, run by the CLI of the same version (built by scripts/toolchain/build.sh --version), through a
// dynamic and a native resource against the local server. The rest of the suite runs the pinned (newest) one.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oldestSupportedPulumiVersion } from "../../scripts/lib/pulumi";
import { type RunningServer, startServer } from "../../server";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { installUserProgram, type UserProgram } from "../helpers/user-program";

const OLDEST = oldestSupportedPulumiVersion();

describe(`a program on the oldest supported Pulumi (SDK and CLI ${OLDEST})`, () => {
  let server: RunningServer;
  let registry: Registry;
  let program: UserProgram;
  let t: TestStack;

  beforeAll(async () => {
    [server, registry] = await Promise.all([
      startServer({ port: 0, storage: "memory", logLevel: "warn", proxyDeletionGraceMs: 50 }),
      startRegistry(),
    ]);
    const digest = await pushArtifact(registry, { path: "team/oldest", tag: "v1", content: "oldest bundle" });
    program = installUserProgram(path.join(__dirname, "fixtures/oldest-pulumi"), {
      dependencies: { "@pulumi/pulumi": OLDEST },
      devDependencies: { typescript: "^5.0.0" },
    });
    // ts-node type-checks the program with the user's TypeScript against that SDK's typings.
    t = await createTestStack(program.dir, { pulumiVersion: OLDEST });
    // As the package's README tells a user: the plugin from the installed package, into the stack's PULUMI_HOME.
    execFileSync(path.join(program.dir, "node_modules/.bin/exampledev-plugin"), ["install"], {
      cwd: program.dir,
      env: { ...process.env, ...t.env },
      stdio: "inherit",
    });
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      repo: { value: registry.repo("team/oldest") },
      digest: { value: digest },
    });
  });

  afterAll(async () => {
    await t?.dispose();
    program?.dispose();
    await Promise.all([server?.close(), registry?.stop()]);
  });

  it("runs on that CLI and SDK: up, a no-change preview and destroy", async () => {
    expect(await t.stack.workspace.pulumiVersion).toBe(OLDEST);
    const up = await t.stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 4 });
    expect(up.outputs.sdkVersion?.value).toBe(OLDEST);
    expect(up.outputs.liveRevision?.value).toMatch(/^hello-/);
    expect(up.outputs.nativeProxyName?.value).toMatch(/^native-edge-/);
    expect((await t.stack.preview()).changeSummary).toEqual({ same: 4 });
    expect((await t.stack.destroy()).summary.resourceChanges).toMatchObject({ delete: 4 });
  });
});
