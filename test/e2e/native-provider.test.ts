// The native package as a user runs it: the plugin installed with `pulumi plugin install` (into the test's
// own PULUMI_HOME), a TypeScript program on `@exampledev/pulumi/native`, the real CLI through the Automation
// API, and the local API server or kube-apiserver (test/helpers/backends.ts).
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPlugin } from "../../scripts/native/plugin-install";
import type { Client } from "../../sdk/client";
import { NATIVE_TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { PLACEHOLDERS } from "../../sdk/schema";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const REPO = path.resolve(__dirname, "../..");
const fixture = path.join(__dirname, "fixtures/native");
const IMPORTED_SECRET = "imported-api-key-0f3e";
// The API key comes from secret config; the key data is a literal in the program that the schema marks secret.
const SECRETS = { apiKey: "native-api-key-e2e-4c1d", literalKeyData: "bmF0aXZlLWtleS1kYXRhLWUyZQ==" };

function readAllFiles(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

const timed = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
  const started = Date.now();
  try {
    return await run();
  } finally {
    console.log(`[native e2e] ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
};

describe.each(BACKENDS)("the native plugin through the real Pulumi CLI, on the %s server", (backendName) => {
  let backend: Backend;
  let client: Client;
  let registry: Registry;
  let t: TestStack;
  let digest: string;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  beforeAll(async () => {
    [backend, registry] = await Promise.all([startBackend(backendName), startRegistry()]);
    client = backend.client;
    digest = await pushArtifact(registry, { path: "team/native", tag: "v1", content: "native bundle" });
    // A run that was killed leaves its stack config behind; start from none.
    t = await createTestStack(fixture);
    // As a user would, but into the test's PULUMI_HOME: the machine's plugin cache is left alone.
    await timed("plugin install", async () => installPlugin(t.env));
    await t.stack.setAllConfig({
      ...backend.config,
      repo: { value: registry.repo("team/native") },
      digest: { value: digest },
      apiKey: { value: SECRETS.apiKey, secret: true },
    });
  });

  afterAll(async () => {
    await t?.dispose();
    await Promise.all([backend?.close(), registry?.stop()]);
  });

  const up = async () => {
    const result = await timed("up", () => t.stack.up({ onOutput }));
    expect(result.summary.result).toBe("succeeded");
    return result.outputs;
  };
  const value = (outputs: OutputMap, key: string) => outputs[key]?.value as string;
  let firstRevision: string;

  it("creates through the installed plugin and exports the minted and the live revision", async () => {
    const outputs = await up();
    firstRevision = value(outputs, "latestRevision");
    expect(firstRevision).toMatch(/^native-api-[0-9a-f]{10}$/);
    expect(value(outputs, "liveRevision")).toBe(firstRevision);
    expect(value(outputs, "proxyName")).toBe("native-edge");
    expect((await client.serviceRevisions.get(firstRevision)).spec.bundle).toMatchObject({ digest });
    const { deployment } = await t.stack.exportStack();
    const types = (deployment as { resources: { type: string }[] }).resources.map(({ type }) => type);
    expect(types).toEqual(expect.arrayContaining([NATIVE_TYPE_TOKENS.Proxy, NATIVE_TYPE_TOKENS.Service]));
    expect(types).toContain("pulumi:providers:exampledev");
  });

  it("previews no changes right after up", async () => {
    const preview = await timed("preview", () => t.stack.preview({ onOutput }));
    expect(Object.keys(preview.changeSummary)).toEqual(["same"]);
  });

  it("shows each changed path: an update in place, and a replacement with its reason", async () => {
    await t.stack.setAllConfig({ greeting: { value: "bonjour" }, revisionDate: { value: "2026-02-01" } });
    const lines: string[] = [];
    const preview = await t.stack.preview({ diff: true, onOutput: (line) => lines.push(line) });
    const text = `${lines.join("")}\n${preview.stderr}`;
    console.log(`[native e2e] preview --diff:\n${text}`);
    expect(preview.changeSummary).toMatchObject({ update: 1, replace: 1 });
    // The detailed diff: only the changed leaf, nested by its path (spec.template.spec.env[0].value).
    expect(text).toMatch(
      /~ spec: \{\s*~ template: \{\s*~ spec: \{\s*~ env: \[\s*~ \[0\]: \{\s*~ value: "hello" => "bonjour"\s*\}\s*\]/,
    );
    expect(text).toMatch(
      /\+-exampledev:compute\/v1alpha1:ServiceRevision: \(replace\)[\s\S]*~ runtime: \{\s*~ compatibilityDate: "2026-01-01" => "2026-02-01"/,
    );
    expect(text).toContain("replaced because spec: a ServiceRevision is immutable");
    const outputs = await up();
    expect(value(outputs, "latestRevision")).not.toBe(firstRevision);
    expect(value(outputs, "liveRevision")).toBe(value(outputs, "latestRevision"));
    expect((await client.serviceRevisions.get("native-manual-revision")).spec.runtime).toMatchObject({
      compatibilityDate: "2026-02-01",
    });
  });

  it("pins the first revision while the latest stays minted", async () => {
    await t.stack.setConfig("pinnedRevision", { value: firstRevision });
    const outputs = await up();
    expect(value(outputs, "liveRevision")).toBe(firstRevision);
    expect(value(outputs, "latestRevision")).not.toBe(firstRevision);
  });

  it("refreshes without drift (secret placeholders are not drift), and reports a real change", async () => {
    // --expect-no-changes: a refresh that changes anything in state (a secret placeholder taken for drift)
    // fails. No preview after it: with the state as the last up left it, the up below, whose exact count
    // shows every resource but the drifted Proxy without a diff, says what that preview said.
    const refresh = await timed("refresh", () => t.stack.refresh({ onOutput, expectNoChanges: true }));
    expect(refresh.summary.result).toBe("succeeded");

    await client.proxies.patch(
      "native-edge",
      { spec: { shutdown: { drainTimeout: "25s" } } },
      { type: "merge" },
    );
    const drift = await t.stack.refresh({ onOutput });
    expect(drift.summary.resourceChanges).toMatchObject({ update: 1 });
    const result = await timed("up", () => t.stack.up({ onOutput }));
    expect(result.summary.result).toBe("succeeded");
    const changes = result.summary.resourceChanges ?? {};
    expect(Object.keys(changes).sort()).toEqual(["same", "update"]);
    expect(changes.update).toBe(1);
    expect((await client.proxies.get("native-edge")).spec.shutdown).toMatchObject({ drainTimeout: "20s" });
  });

  it("keeps secrets (from config and literal) out of `pulumi stack export`, the state files and the output", async () => {
    const exported = execFileSync("pulumi", ["stack", "export", "--stack", t.stack.name], {
      cwd: t.dir,
      env: { ...process.env, ...t.env },
      encoding: "utf8",
    });
    const stateFiles = readAllFiles(path.join(t.stateDir, "backend"));
    for (const secret of Object.values(SECRETS)) {
      expect(exported).not.toContain(secret);
      expect(stateFiles).not.toContain(secret);
      expect(printed.join("\n")).not.toContain(secret);
    }
    // They are in state, encrypted (the literal too: the plugin marks the schema's secret fields).
    const proxy = JSON.parse(exported).deployment.resources.find(
      (resource: { type: string }) => resource.type === NATIVE_TYPE_TOKENS.Proxy,
    );
    expect(JSON.stringify(proxy.outputs)).toContain("ciphertext");
    expect(JSON.stringify(proxy.inputs)).toContain("ciphertext");
  });

  it("destroys everything", async () => {
    const destroy = await timed("destroy", () => t.stack.destroy({ onOutput }));
    expect(destroy.summary.result).toBe("succeeded");
    expect(await client.proxies.listAll()).toEqual([]);
    expect(await client.services.listAll()).toEqual([]);
  });

  it("checks the provider's settings before anything else (CheckConfig), naming the setting", async () => {
    await t.stack.setConfig("exampledev:serverSideApply", { value: "yes" });
    try {
      const failure = await t.stack.preview({ onOutput }).then(
        () => undefined,
        (error: unknown) => String(error),
      );
      expect(failure).toContain('exampledev:serverSideApply must be true or false, not "yes"');
      // The setting's value is not printed beside it (a failure names no property).
      expect(failure).not.toContain("value {yes}");
    } finally {
      await t.stack.removeConfig("exampledev:serverSideApply");
    }
  });

  describe("pulumi import of objects created over HTTP", () => {
    let imported: TestStack;
    let project: string;

    afterAll(async () => {
      await imported?.dispose();
      if (project) rmSync(project, { recursive: true, force: true });
    });

    it("imports one object of each kind and writes their program, which previews no changes", async () => {
      const bundle = { repo: registry.repo("team/native"), digest };
      const runtime = { compatibilityDate: "2026-01-01" };
      await client.proxies.create({
        apiVersion: "core.example.dev/v1alpha2",
        kind: "Proxy",
        metadata: { name: "legacy-edge", labels: { owner: "ops" } },
        spec: {
          shutdown: { drainTimeout: "15s", minimumDrainTime: "30s" },
          telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: IMPORTED_SECRET } } },
        },
      } as never);
      await client.services.create({
        apiVersion: "compute.example.dev/v1alpha1",
        kind: "Service",
        metadata: { name: "legacy-api" },
        spec: { source: { oci: bundle }, template: { spec: { runtime } } },
      } as never);
      await client.serviceRevisions.create({
        apiVersion: "compute.example.dev/v1alpha1",
        kind: "ServiceRevision",
        metadata: { name: "legacy-revision" },
        spec: { runtime, bundle },
      } as never);

      // An empty program outside the repository, resolving packages through the repository's node_modules.
      project = mkdtempSync(path.join(tmpdir(), "exampledev-native-import-"));
      cpSync(path.join(path.dirname(fixture), "native-import"), project, { recursive: true });
      symlinkSync(path.join(REPO, "node_modules"), path.join(project, "node_modules"));
      // The same user's PULUMI_HOME, where the plugin is already installed (beforeAll).
      imported = await createTestStack(project, {
        stackName: "imported",
        env: { PULUMI_HOME: t.env.PULUMI_HOME as string },
      });
      await imported.stack.setAllConfig(backend.config);
      const result = await timed("import", () =>
        imported.stack.import({
          resources: [
            { type: NATIVE_TYPE_TOKENS.Proxy, name: "edge", id: "legacy-edge" },
            { type: NATIVE_TYPE_TOKENS.Service, name: "api", id: "legacy-api" },
            { type: NATIVE_TYPE_TOKENS.ServiceRevision, name: "revision", id: "legacy-revision" },
          ],
          protect: false,
          generateCode: true,
          onOutput,
        }),
      );
      expect(result.summary.result).toBe("succeeded");
      expect(result.summary.resourceChanges).toMatchObject({ import: 3 });
      const code = result.generatedCode;
      console.log(`[native e2e] the program pulumi import wrote:\n${code}`);
      expect(code).toContain('from "@exampledev/pulumi/native"');
      expect(code).toContain("new exampledev.compute.v1alpha1.Service(");
      expect(code).toContain('"legacy-revision"');
      // The API never returns a secret: its placeholder stands in, and is no drift.
      expect(code).not.toContain(IMPORTED_SECRET);
      expect(code).toContain(PLACEHOLDERS.apiKey);

      writeFileSync(path.join(project, "index.ts"), code);
      const preview = await timed("preview of the program import wrote", () =>
        imported.stack.preview({ onOutput, expectNoChanges: true }),
      );
      expect(Object.keys(preview.changeSummary)).toEqual(["same"]);
      const destroy = await imported.stack.destroy({ onOutput });
      expect(destroy.summary.result).toBe("succeeded");
      expect(await client.services.listAll()).toEqual([]);
    });
  });
});
