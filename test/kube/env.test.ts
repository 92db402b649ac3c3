import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Agent, fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KubeEnv, startKube } from "../../kube/env";
import { createRawClient } from "../../sdk/client/raw";

const CONFIG_MAPS = "/api/v1/namespaces/default/configmaps";
/** Generous: the garbage collector acts within a second once its caches have synced. */
const GC_DEADLINE = { timeout: 60_000, interval: 200 };

/**
 * The garbage collector at work on built-in kinds (no CRDs here): a ConfigMap owned by another goes once
 * the owner is deleted.
 */
async function expectCollected(kube: KubeEnv, name: string): Promise<void> {
  const admin = createRawClient({
    baseUrl: kube.url,
    token: kube.token,
    ca: kube.caCert,
    userAgent: "env-test",
  });
  try {
    const owner = await admin.ok<{ metadata: { uid: string } }>("POST", CONFIG_MAPS, {
      metadata: { name: `${name}-owner` },
    });
    const ownerReferences = [
      { apiVersion: "v1", kind: "ConfigMap", name: `${name}-owner`, uid: owner.metadata.uid },
    ];
    await admin.ok("POST", CONFIG_MAPS, { metadata: { name: `${name}-dependent`, ownerReferences } });
    await admin.ok("DELETE", `${CONFIG_MAPS}/${name}-owner`);
    await expect
      .poll(async () => (await admin.call("GET", `${CONFIG_MAPS}/${name}-dependent`)).status, GC_DEADLINE)
      .toBe(404);
  } finally {
    await admin.close();
  }
}

describe("a real Kubernetes API server on loopback", () => {
  let kube: KubeEnv;
  beforeAll(async () => {
    kube = await startKube();
  });
  afterAll(() => kube?.close());

  it("is ready over TLS signed by its own CA, for the admin's token", async () => {
    const response = await fetch(`${kube.url}/readyz`, {
      dispatcher: kube.dispatcher,
      headers: { authorization: `Bearer ${kube.token}` },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
  });

  it("answers kubectl with the kubeconfig it wrote, as the pinned release", async () => {
    const { stdout } = await promisify(execFile)("kubectl", [
      `--kubeconfig=${kube.kubeconfig}`,
      "get",
      "--raw",
      "/version",
    ]);
    expect(JSON.parse(stdout)).toMatchObject({
      major: "1",
      gitVersion: expect.stringMatching(/^v1\.\d+\.\d+$/),
    });
  });

  it("authorizes with RBAC: an unknown token is refused, anonymous users see no objects", async () => {
    const get = (headers: Record<string, string>) =>
      fetch(`${kube.url}/api/v1/namespaces`, { dispatcher: kube.dispatcher, headers });
    expect((await get({ authorization: "Bearer not-a-token" })).status).toBe(401);
    expect((await get({})).status).toBe(403);
    expect((await get({ authorization: `Bearer ${kube.token}` })).status).toBe(200);
  });

  it("runs kube-controller-manager's garbage collector: a dependent goes with its owner", async () => {
    expect((await fetch(kube.controllerManagerHealthz, { dispatcher: kube.dispatcher })).status).toBe(200);
    await expectCollected(kube, "collected");
  });
});

describe("closing the environment", () => {
  it("stops the three processes and removes its directory", async () => {
    const kube = await startKube();
    await kube.close();
    expect(existsSync(kube.dir)).toBe(false);
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    await expect(fetch(`${kube.url}/readyz`, { dispatcher: insecure })).rejects.toThrow();
    await expect(fetch(kube.controllerManagerHealthz, { dispatcher: insecure })).rejects.toThrow();
    await expect(fetch(`${kube.etcdUrl}/health`)).rejects.toThrow();
    await insecure.close();
  });
});

describe("a kept directory", () => {
  it("starts again with a garbage collector that works", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "exampledev-kube-kept-"));
    try {
      await (await startKube({ dir })).close();
      const again = await startKube({ dir });
      try {
        await expectCollected(again, "restarted");
      } finally {
        await again.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
