import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { call, manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

/** Creates and deletes a Proxy; the grace its mark records (`metadata.deletionGracePeriodSeconds`). */
async function deleteProxy(url: string): Promise<unknown> {
  expect((await call(url, "POST", pathOf("Proxy"), { body: manifest("Proxy", "edge", {}) })).status).toBe(
    201,
  );
  const marked = await call(url, "DELETE", pathOf("Proxy", "edge"));
  expect(marked.status).toBe(200);
  return marked.body.metadata.deletionGracePeriodSeconds;
}

describe("--proxy-deletion-grace", () => {
  it("sets how long a deleted Proxy terminates; the flag wins over EXAMPLEDEV_PROXY_DELETION_GRACE", async () => {
    const env = { EXAMPLEDEV_PROXY_DELETION_GRACE: "1h" };
    const short = spawnServer(["--proxy-deletion-grace", "100ms"], env);
    const long = spawnServer([], env);
    const [shortUrl, longUrl] = await Promise.all([short.url, long.url]);
    // The mark records the grace the server applies, in whole seconds (rounded up), so a client can tell
    // when the Proxy terminates: deletionTimestamp + deletionGracePeriodSeconds.
    expect(await Promise.all([deleteProxy(shortUrl), deleteProxy(longUrl)])).toEqual([1, 3600]);

    await expect
      .poll(async () => (await call(shortUrl, "GET", pathOf("Proxy", "edge"))).status, { timeout: 20_000 })
      .toBe(404);
    // Past the default grace of 1 s, the Proxy of the server told 1h is still terminating.
    await sleep(1_500);
    const terminating = await call(longUrl, "GET", pathOf("Proxy", "edge"));
    expect(terminating.status).toBe(200);
    expect(terminating.body.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      deletionGracePeriodSeconds: 3600,
    });
  }, 90_000);

  it("refuses what is not a duration", async () => {
    const server = spawnServer(["--proxy-deletion-grace", "soon"]);
    const [code] = await once(server.child, "exit");
    expect(code).toBe(2);
    expect(server.stderr()).toContain('--proxy-deletion-grace: "soon" is not a duration');
  }, 60_000);
});
