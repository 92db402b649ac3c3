import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient } from "../../sdk/client";
import { realSleep } from "../../sdk/client/transport";
import { spawnServer } from "../helpers/server-process";

// The client's retries ride through a restart of the API server: a server that answered before and now
// refuses connections is retried beyond maxRetries (3), up to 45 s of waits, for requests safe to repeat. The
// durable local server is killed with -9 while a read and a replace with a resourceVersion wait; it comes
// back on the same port and data 30 s later, and both requests succeed.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a restart of the API server", () => {
  it("is ridden through by reads and preconditioned writes for 30 s", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "ride-through-"));
    dirs.push(dir);
    const port = await freePort();
    const args = ["--data", dir, "--port", String(port), "--token", "t0k"];
    const first = spawnServer(args);
    const baseUrl = await first.url;
    let waits = 0;
    const api = createClient({
      baseUrl,
      token: "t0k",
      sleep: async (ms, signal) => {
        waits++;
        await realSleep(ms, signal);
      },
    });
    try {
      const created = await api.proxies.create({
        apiVersion: "core.example.dev/v1alpha2",
        kind: "Proxy",
        metadata: { name: "edge" },
        spec: {},
      });
      // The server's controller writes the Proxy's readiness right after the create: replace that version.
      const current = await vi.waitFor(async () => {
        const read = await api.proxies.get("edge");
        expect(read.status?.observedGeneration).toBe(1);
        return read;
      });
      first.child.kill("SIGKILL");
      await new Promise((resolve) => first.child.once("exit", resolve));

      const read = api.proxies.get("edge");
      const replaced = api.proxies.replace("edge", {
        ...current,
        metadata: { ...current.metadata, labels: { restarted: "yes" } },
      });
      // Down for 30 s (the set-up, not an assertion), then back on the same port and data.
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      const second = spawnServer(args);
      await second.url;
      await expect(read).resolves.toMatchObject({ metadata: { name: "edge", uid: created.metadata.uid } });
      await expect(replaced).resolves.toMatchObject({ metadata: { labels: { restarted: "yes" } } });
      // Far more than maxRetries (3) each: the restart budget carried them.
      expect(waits).toBeGreaterThan(2 * 3);
    } finally {
      await api.close();
    }
  }, 150_000);
});
