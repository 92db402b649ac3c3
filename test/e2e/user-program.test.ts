// The package as a user installs it: a fresh program outside the repository depends on the packed package, the
// newest @pulumi/pulumi 3.x and zod 4 from the registry. package.json declares ranges (as Pulumi's own
// packages do), so npm keeps one copy of each in the program's tree: the one the program runs on, the
// dynamic-provider host evaluates the provider with (`require("@exampledev/pulumi/provider")` from the
// program's directory), and the resource classes register through. `up` and `destroy` run through the real
// CLI against the local API server.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../server";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { installUserProgram, newestVersion, type UserProgram } from "../helpers/user-program";

describe("a user's program on the packed package and the newest @pulumi/pulumi 3.x", () => {
  let server: RunningServer;
  let registry: Registry;
  let program: UserProgram;
  let t: TestStack;
  let newestPulumi: string;
  let digest: string;

  beforeAll(async () => {
    [server, registry] = await Promise.all([
      startServer({ port: 0, storage: "memory", logLevel: "warn", proxyDeletionGraceMs: 50 }),
      startRegistry(),
    ]);
    digest = await pushArtifact(registry, { path: "team/user", tag: "v1", content: "user bundle" });
    newestPulumi = newestVersion("@pulumi/pulumi", "3");
    const started = Date.now();
    program = installUserProgram(path.join(__dirname, "fixtures/user-program"), {
      dependencies: { "@pulumi/pulumi": "^3.0.0", zod: "^4.0.0" },
      devDependencies: { typescript: "^5.0.0" },
    });
    console.log(`[user program] npm pack + npm install: ${Date.now() - started} ms`);
    t = await createTestStack(program.dir);
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      repo: { value: registry.repo("team/user") },
      digest: { value: digest },
    });
  });

  afterAll(async () => {
    await t?.dispose();
    program?.dispose();
    await Promise.all([server?.close(), registry?.stop()]);
  });

  it("installs one copy of @pulumi/pulumi (the newest 3.x) and of zod", () => {
    const pulumiCopies = program.installedCopies("@pulumi/pulumi");
    console.log(`[user program] npm ls @pulumi/pulumi --all --parseable:\n${pulumiCopies.join("\n")}`);
    expect(pulumiCopies).toEqual([path.join(program.dir, "node_modules/@pulumi/pulumi")]);
    expect(require(path.join(pulumiCopies[0] ?? "", "package.json")).version).toBe(newestPulumi);
    expect(program.installedCopies("zod")).toEqual([path.join(program.dir, "node_modules/zod")]);
  });

  it("runs up and destroy through the real CLI against the local server", async () => {
    const started = Date.now();
    const up = await t.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toMatchObject({ create: 3 });
    // The program ran on the user's SDK, the one the provider host loaded the provider with.
    expect(up.outputs.sdkVersion?.value).toBe(newestPulumi);
    expect(up.outputs.liveRevision?.value).toMatch(/^hello-/);

    // up type-checked the program with the user's TypeScript; the preview runs the same program unchanged, for
    // its diff alone, without checking it again (seconds of CPU).
    t.stack.workspace.envVars.PULUMI_NODEJS_TRANSPILE_ONLY = "true";
    const preview = await t.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 3 });

    const destroy = await t.stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    expect(destroy.summary.resourceChanges).toMatchObject({ delete: 3 });
    console.log(`[user program] up, preview, destroy: ${Date.now() - started} ms`);
  });
});
