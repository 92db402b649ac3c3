import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedPulumi } from "../../scripts/lib/pulumi";
import { type Client, createClient } from "../../sdk/client";
import { type RunningServer, startServer } from "../../server";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { copyRepository, type RepoCopy, repoRoot } from "./repo-copy";

// The examples run from a temporary copy of the repository: a stack writes its config file
// (`Pulumi.<stack>.yaml`, with the salt of its passphrase) next to `Pulumi.yaml`, and one written into the real
// examples/ would clash with the stacks a developer creates there by following the READMEs.
describe("the examples, through the real Pulumi CLI", () => {
  let copy: RepoCopy;
  let examples: string;
  let server: RunningServer;
  let client: Client;
  let registry: Registry;
  let bundle: { repo: string; digest: string };
  const stacks: TestStack[] = [];

  beforeAll(async () => {
    copy = copyRepository("examples");
    examples = path.join(copy.dir, "examples");
    [server, registry] = await Promise.all([
      startServer({ port: 0, storage: "memory", logLevel: "warn" }),
      startRegistry(),
    ]);
    client = createClient({ baseUrl: server.url });
    bundle = {
      repo: registry.repo("examples/app"),
      digest: await pushArtifact(registry, { path: "examples/app", tag: "v1", content: "example bundle" }),
    };
  });
  afterAll(async () => {
    for (const t of stacks) await t.dispose();
    await client?.close();
    await Promise.all([server?.close(), registry?.stop()]);
    copy?.dispose();
  });

  const stackOf = async (example: string) => {
    const t = await createTestStack(path.join(examples, example));
    stacks.push(t);
    await t.stack.setConfig("exampledev:baseUrl", { value: server.url });
    return t.stack;
  };

  it("quickstart: creates a Proxy and a Service and exports the minted, live revision and egress", async () => {
    const stack = await stackOf("quickstart");
    await stack.setAllConfig({ bundleRepo: { value: bundle.repo }, bundleTag: { value: "v1" } });
    const { outputs } = await stack.up();
    const latest = outputs.latestRevision?.value as string;
    expect(latest).toMatch(new RegExp(`^${outputs.serviceName?.value}-[0-9a-f]{10}$`));
    expect(outputs.liveRevision?.value).toBe(latest);
    expect(outputs.egressReady?.value).toBe(true);
    // The tag was resolved by the controller against the real registry.
    expect((await client.serviceRevisions.get(latest)).spec.bundle.digest).toBe(bundle.digest);
    expect(Object.keys((await stack.preview()).changeSummary)).toEqual(["same"]);
    await stack.destroy();
    // The stack's config file went to the copy, not to the repository.
    expect(existsSync(path.join(examples, "quickstart/Pulumi.e2e.yaml"))).toBe(true);
    expect(existsSync(path.join(repoRoot, "examples/quickstart/Pulumi.e2e.yaml"))).toBe(false);
  });

  it("rollback: pins the first revision, keeps minting, then returns to automatic selection", async () => {
    const stack = await stackOf("rollback");
    await stack.setAllConfig({ bundleRepo: { value: bundle.repo }, bundleDigest: { value: bundle.digest } });
    const up = async (config: Record<string, string | undefined>) => {
      for (const [key, value] of Object.entries(config)) {
        if (value === undefined) await stack.removeConfig(key);
        else await stack.setConfig(key, { value });
      }
      const { outputs } = await stack.up();
      return { latest: outputs.latestRevision?.value as string, live: outputs.liveRevision?.value as string };
    };
    const a = await up({ appVersion: "1" });
    const b = await up({ appVersion: "2" });
    expect(b.latest).not.toBe(a.latest);
    expect(b.live).toBe(b.latest);

    expect(await up({ pinnedRevision: a.latest })).toEqual({ latest: b.latest, live: a.latest });
    const c = await up({ appVersion: "3" });
    expect(c.latest).not.toBe(b.latest);
    expect(c.live).toBe(a.latest);
    expect(await up({ pinnedRevision: undefined })).toEqual({ latest: c.latest, live: c.latest });
    await stack.destroy();
  });

  it("programmatic: the typed client and the Automation API from a plain program", async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), "exampledev-programmatic-"));
    mkdirSync(path.join(stateDir, "backend"));
    try {
      const { env } = await pinnedPulumi(stateDir, "programmatic");
      const { stdout } = await promisify(execFile)("ts-node", ["index.ts"], {
        cwd: path.join(examples, "programmatic"),
        env: {
          ...process.env,
          ...env,
          EXAMPLEDEV_BASE_URL: server.url,
          BUNDLE_REPO: bundle.repo,
          BUNDLE_DIGEST: bundle.digest,
        },
      });
      expect(stdout).toMatch(/client: programmatic-\w+ minted programmatic-\w+-[0-9a-f]{10}/);
      expect(stdout).toMatch(/client: pinned, live revision is now programmatic-\w+-[0-9a-f]{10}/);
      expect(stdout).toMatch(
        /automation: latest automated-\w+-[0-9a-f]{10}, live automated-\w+-[0-9a-f]{10}/,
      );
      // The program cleans up after itself.
      expect(await client.services.listAll()).toEqual([]);
      expect(existsSync(path.join(examples, "programmatic/Pulumi.dev.yaml"))).toBe(true);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
