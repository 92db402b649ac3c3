import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { call, manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

/** Creates a Proxy (the controller's finalizer on it from the start) and deletes it; the mark. */
async function deleteProxy(url: string): Promise<unknown> {
  const created = await call(url, "POST", pathOf("Proxy"), { body: manifest("Proxy", "edge", {}) });
  expect(created.status).toBe(201);
  expect(created.body.metadata.finalizers).toEqual(["core.example.dev/drain"]);
  const marked = await call(url, "DELETE", pathOf("Proxy", "edge"));
  expect(marked.status).toBe(200);
  return marked.body.metadata;
}

describe("--proxy-deletion-grace", () => {
  it("sets how long a deleted Proxy drains; the flag wins over EXAMPLEDEV_PROXY_DELETION_GRACE", async () => {
    const env = { EXAMPLEDEV_PROXY_DELETION_GRACE: "1h" };
    const short = spawnServer(["--proxy-deletion-grace", "100ms"], env);
    const long = spawnServer([], env);
    const [shortUrl, longUrl] = await Promise.all([short.url, long.url]);
    // Both marks alike, as kube-apiserver marks a custom resource: a grace of 0, the drain's finalizer.
    const mark = {
      deletionTimestamp: expect.any(String),
      deletionGracePeriodSeconds: 0,
      finalizers: ["core.example.dev/drain"],
    };
    expect(await Promise.all([deleteProxy(shortUrl), deleteProxy(longUrl)])).toEqual([
      expect.objectContaining(mark),
      expect.objectContaining(mark),
    ]);

    await expect
      .poll(async () => (await call(shortUrl, "GET", pathOf("Proxy", "edge"))).status, { timeout: 20_000 })
      .toBe(404);
    // Past the default of 1 s, the Proxy of the server told 1h still drains.
    await sleep(1_500);
    const terminating = await call(longUrl, "GET", pathOf("Proxy", "edge"));
    expect(terminating.status).toBe(200);
    expect(terminating.body.metadata).toMatchObject(mark);
  }, 90_000);

  it("refuses what is not a duration", async () => {
    const server = spawnServer(["--proxy-deletion-grace", "soon"]);
    const [code] = await once(server.child, "exit");
    expect(code).toBe(2);
    expect(server.stderr()).toContain('--proxy-deletion-grace: "soon" is not a duration');
  }, 60_000);
});
