// A Go program on the native package, end to end: `npm run gen-sdk --check` generates the SDKs (failing when
// the committed Node SDK is stale) and compiles the Go SDK; the Go language host is built from sdk/v3
// v3.60.0 (scripts/native/go-host.ts); the program in fixtures/native-go runs `up` and `destroy` through the
// installed plugin and the real CLI.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedPulumiVersion } from "../../scripts/lib/pulumi";
import { goEnvironment, goLanguageHostDir } from "../../scripts/native/go-host";
import { installPlugin } from "../../scripts/native/plugin-install";
import { type Client, createClient } from "../../sdk/client";
import { type RunningServer, startServer } from "../../server";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const REPO = path.resolve(__dirname, "../..");
const GO_SDK = path.join(REPO, "build", "sdks", "go");

const timed = <T>(what: string, run: () => T): T => {
  const started = Date.now();
  try {
    return run();
  } finally {
    console.log(`[native go e2e] ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
};

describe("a Go program on the generated Go SDK, through the native plugin", () => {
  let server: RunningServer;
  let client: Client;
  let registry: Registry;
  let t: TestStack;
  let project: string;

  beforeAll(async () => {
    timed("gen-sdk --check (generate, compile Go, compare sdk/native)", () =>
      execFileSync(process.execPath, [path.join(REPO, "dist/scripts/native/gen-sdk.js"), "--check"], {
        stdio: "inherit",
      }),
    );
    const hostDir = timed("Go language host", goLanguageHostDir);
    [server, registry] = await Promise.all([
      startServer({ port: 0, storage: "memory", logLevel: "warn" }),
      startRegistry(),
    ]);
    client = createClient({ baseUrl: server.url });
    const digest = await pushArtifact(registry, { path: "team/go", tag: "v1", content: "go bundle" });

    // A copy outside the repository, its go.mod pointing at the generated SDK.
    project = mkdtempSync(path.join(tmpdir(), "exampledev-native-go-"));
    cpSync(path.join(__dirname, "fixtures/native-go"), project, { recursive: true });
    writeFileSync(
      path.join(project, "go.mod"),
      [
        "module example.dev/native-go",
        "",
        "go 1.24",
        "",
        `require github.com/pulumi/pulumi/sdk/v3 v${pinnedPulumiVersion()}`,
        "require github.com/exampledev/pulumi-exampledev/sdk/go v0.0.0",
        "",
        `replace github.com/exampledev/pulumi-exampledev/sdk/go => ${GO_SDK}`,
        "",
      ].join("\n"),
    );
    cpSync(path.join(GO_SDK, "go.sum"), path.join(project, "go.sum"));
    const goEnv = goEnvironment();
    timed("go mod tidy", () =>
      execFileSync("go", ["mod", "tidy"], {
        cwd: project,
        env: { ...goEnv, GOFLAGS: "-mod=mod" },
        stdio: "inherit",
      }),
    );

    t = await createTestStack(project, {
      env: { PATH: [hostDir, goEnv.PATH].join(path.delimiter), CGO_ENABLED: "0", GOFLAGS: "-mod=mod" },
    });
    installPlugin(t.env);
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      repo: { value: registry.repo("team/go") },
      digest: { value: digest },
    });
    // On a machine without the caches, the generator, the Go host and the Go SDK each compile first (minutes).
  }, 1_800_000);

  afterAll(async () => {
    await t?.dispose();
    if (project) rmSync(project, { recursive: true, force: true });
    await client?.close();
    await Promise.all([server?.close(), registry?.stop()]);
  });

  it("creates a Service, exports the minted revision, and destroys it", async () => {
    const started = Date.now();
    const up = await t.stack.up({ onOutput: (line) => process.stdout.write(line) });
    console.log(`[native go e2e] up: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(up.summary.result).toBe("succeeded");
    const latest = up.outputs.latestRevision?.value as string;
    expect(latest).toMatch(/^go-api-[0-9a-f]{10}$/);
    expect(up.outputs.liveRevision?.value).toBe(latest);
    expect((await client.services.get("go-api")).status?.latestRevision).toBe(latest);
    // LookupService (the schema's getService) through the plugin's Invoke.
    expect(up.outputs.lookedUpLatestRevision?.value).toBe(latest);
    expect(up.outputs.lookedUpUid?.value).toBe((await client.services.get("go-api")).metadata.uid);

    const destroy = await t.stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    expect(await client.services.listAll()).toEqual([]);
  });
});
