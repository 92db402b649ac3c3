import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { Agent, fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KubeEnv, startKube } from "../../kube/env";

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
});

describe("closing the environment", () => {
  it("stops both processes and removes its directory", async () => {
    const kube = await startKube();
    await kube.close();
    expect(existsSync(kube.dir)).toBe(false);
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    await expect(fetch(`${kube.url}/readyz`, { dispatcher: insecure })).rejects.toThrow();
    await expect(fetch(`${kube.etcdUrl}/health`)).rejects.toThrow();
    await insecure.close();
  });
});
