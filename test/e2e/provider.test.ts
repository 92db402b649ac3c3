import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "../../sdk/client";
import { providerSource } from "../../sdk/resources/provider-source";
import { TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { KIND_NAMES } from "../../sdk/schema";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const fixture = path.join(__dirname, "fixtures/objects");
const SECRETS = {
  apiKey: "api-key-e2e-7d1f0c",
  apiKeyData: "YXBpLWtleS1kYXRhLWUyZQ==",
  password: "registry-password-e2e-51c2",
  accessToken: "access-token-e2e-93ab",
  refreshToken: "refresh-token-e2e-0e4d",
  passwordData: "password-data-e2e-77f1",
};
const user = "deployer";

/** The text of every file under `dir`, concatenated: what a secret scanner would see on disk. */
function readAllFiles(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

describe.each(BACKENDS)("the provider through the real Pulumi CLI, on the %s server", (backendName) => {
  let backend: Backend;
  let client: Client;
  let openRegistry: Registry;
  let authRegistry: Registry;
  let t: TestStack;
  let digest: string;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  beforeAll(async () => {
    [backend, openRegistry, authRegistry] = await Promise.all([
      startBackend(backendName),
      startRegistry(),
      startRegistry({ auth: { type: "htpasswd", users: { [user]: SECRETS.password } } }),
    ]);
    client = backend.client;
    digest = await pushArtifact(openRegistry, { path: "team/app", tag: "v1", content: "bundle one" });
    await pushArtifact(authRegistry, {
      path: "team/private",
      tag: "v1",
      content: "private bundle",
      auth: { username: user, password: SECRETS.password },
    });
    t = await createTestStack(fixture);
    await t.stack.setAllConfig({
      ...backend.config,
      openRepo: { value: openRegistry.repo("team/app") },
      authRepo: { value: authRegistry.repo("team/private") },
      username: { value: user },
      digest: { value: digest },
      ...Object.fromEntries(Object.entries(SECRETS).map(([key, value]) => [key, { value, secret: true }])),
    });
  });

  afterAll(async () => {
    await t?.dispose();
    await Promise.all([backend?.close(), openRegistry?.stop(), authRegistry?.stop()]);
  });

  const up = async () => {
    const result = await t.stack.up({ onOutput });
    expect(result.summary.result).toBe("succeeded");
    return result.outputs;
  };
  const value = (outputs: OutputMap, key: string) => outputs[key]?.value as string;

  let firstRevision: string;

  it("creates every kind and exports the revision the controller minted and the live one", async () => {
    const outputs = await up();
    firstRevision = value(outputs, "latestRevision");
    expect(firstRevision).toMatch(/^by-digest-[0-9a-f]{10}$/);
    expect(value(outputs, "liveRevision")).toBe(firstRevision);
    expect(outputs.egressReady?.value).toBe(true);
    expect(value(outputs, "taggedLatestRevision")).toMatch(
      new RegExp(`^${value(outputs, "taggedName")}-[0-9a-f]{10}$`),
    );
    expect(value(outputs, "revisionDigest")).toBe(digest);

    const minted = await client.serviceRevisions.get(firstRevision);
    expect(minted.spec.bundle).toMatchObject({ repo: openRegistry.repo("team/app"), digest });
    expect((await client.proxies.get("edge")).spec.shutdown).toEqual({
      drainTimeout: "20s",
      minimumDrainTime: "40s",
    });
  });

  it("previews no changes right after up (defaults are not diffs)", async () => {
    const preview = await t.stack.preview({ onOutput });
    expect(Object.keys(preview.changeSummary)).toEqual(["same"]);
  });

  it("keeps the one-line provider text of each kind in state, shared by every resource of the kind", async () => {
    const { deployment } = await t.stack.exportStack();
    const resources = (
      deployment as {
        resources: { type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[];
      }
    ).resources;
    const kinds = new Set<string>();
    for (const { type, inputs, outputs } of resources) {
      const kind = KIND_NAMES.find((name) => TYPE_TOKENS[name] === type);
      if (kind === undefined) continue;
      kinds.add(kind);
      expect(inputs?.__provider).toBe(providerSource(kind));
      expect(outputs?.__provider).toBe(providerSource(kind));
    }
    expect([...kinds].sort()).toEqual(["Proxy", "Service", "ServiceRevision"]);
    expect(resources.filter(({ type }) => type === TYPE_TOKENS.Service).length).toBeGreaterThan(1);
  });

  let secondRevision: string;

  it("mints a new revision on a template change and moves liveRevision to it", async () => {
    await t.stack.setConfig("greeting", { value: "bonjour" });
    const outputs = await up();
    secondRevision = value(outputs, "latestRevision");
    expect(secondRevision).not.toBe(firstRevision);
    expect(value(outputs, "liveRevision")).toBe(secondRevision);
  });

  it("serves a pinned revision while later template changes still mint", async () => {
    await t.stack.setConfig("pinnedRevision", { value: firstRevision });
    let outputs = await up();
    expect(value(outputs, "liveRevision")).toBe(firstRevision);

    await t.stack.setConfig("greeting", { value: "hola" });
    outputs = await up();
    const third = value(outputs, "latestRevision");
    expect(third).not.toBe(secondRevision);
    expect(third).not.toBe(firstRevision);
    expect(value(outputs, "liveRevision")).toBe(firstRevision);
  });

  it("reports an out-of-band change as drift on refresh, and up puts it back", async () => {
    await client.proxies.patch("edge", { spec: { shutdown: { drainTimeout: "25s" } } }, { type: "merge" });
    const refresh = await t.stack.refresh({ onOutput });
    expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });

    // The update that puts it back, counted by the up itself (no separate preview: the same diff decides both).
    const result = await t.stack.up({ onOutput });
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toMatchObject({ update: 1 });
    expect((await client.proxies.get("edge")).spec.shutdown).toMatchObject({ drainTimeout: "20s" });
  });

  it("keeps every secret out of the exported state, the state files and the CLI's output", async () => {
    // The Automation API's exportStack shows secrets; `pulumi stack export` as a user runs it does not.
    const exported = execFileSync("pulumi", ["stack", "export", "--stack", t.stack.name], {
      cwd: t.dir,
      env: { ...process.env, ...t.env },
      encoding: "utf8",
    });
    const stateFiles = readAllFiles(path.join(t.stateDir, "backend"));
    const output = printed.join("\n");
    for (const secret of Object.values(SECRETS)) {
      expect(exported).not.toContain(secret);
      expect(stateFiles).not.toContain(secret);
      expect(output).not.toContain(secret);
    }
    // They are in state, encrypted: each secret field carries Pulumi's secret signature and a ciphertext.
    const revision = JSON.parse(exported).deployment.resources.find(
      (r: { id?: string }) => r.id === "manual-revision",
    );
    expect(revision.inputs.spec.bundle.credentials.accessToken).toHaveProperty("ciphertext");
  });

  it("destroys everything, leaving the server empty", async () => {
    const destroy = await t.stack.destroy({ onOutput });
    expect(destroy.summary.result).toBe("succeeded");
    expect(await client.proxies.listAll()).toEqual([]);
    expect(await client.services.listAll()).toEqual([]);
    // A Service's revisions go with it through the garbage collector, which works after the delete.
    await vi.waitFor(async () => expect(await client.serviceRevisions.listAll()).toEqual([]), {
      timeout: 30_000,
      interval: 250,
    });
  });
});
