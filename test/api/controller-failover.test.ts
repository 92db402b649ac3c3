import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, createClient } from "../../sdk/client";
import { freePorts } from "../helpers/controller-process";
import {
  expectExact,
  FAILOVER_PLAN,
  FailoverBurst,
  figures,
  type KillPoint,
} from "../helpers/failover-burst";
import { type Registry, type SlowManifests, slowManifests, startRegistry } from "../helpers/registry";
import { type ServerProcess, spawnServer } from "../helpers/server-process";

/**
 * The local server on a durable store (`--data`), as a process: a burst of creates and template changes of
 * Services whose sources are OCI tags on slow registries runs; the server is killed with -9 (its embedded
 * controller dies with it) while tag resolutions are under way, restarted on the same store and port, and
 * killed and restarted once more. Every Service ends with exactly one revision per (template, digest) it went
 * through, none twice, none missing, and its status names the last one, live and accepted for its generation.
 * The burst's writes ride through the restarts (repeated while the port refuses).
 */

describe("the local server killed with -9 during a burst, restarted on its store", () => {
  let registry: Registry;
  const hosts: SlowManifests[] = [];
  let dir: string;

  beforeAll(async () => {
    registry = await startRegistry();
    for (let seed = 1; seed <= FAILOVER_PLAN.hosts; seed++)
      hosts.push(await slowManifests(registry, { ...FAILOVER_PLAN.delay, seed }));
    dir = await mkdtemp(path.join(tmpdir(), "controller-failover-"));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await registry?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("mints every (template, digest) once across two kills with registry calls out", async () => {
    const [port] = await freePorts(1);
    // No tag poll: a tag moves only before the write that the test means to mint it.
    const start = () =>
      spawnServer(["--data", dir, "--port", String(port), "--tag-poll-interval", "0", "--log-level", "info"]);
    let server: ServerProcess = start();
    const client: Client = createClient({ baseUrl: await server.url });
    const burst = new FailoverBurst(client, {
      registry,
      hosts,
      timeoutMs: 120_000,
    });
    const done = burst.run();
    const kills: (KillPoint & { restartMs: number })[] = [];
    const logs: string[] = [];
    for (const share of FAILOVER_PLAN.killAt) {
      const point = await burst.killPoint(share);
      const killedAt = Date.now();
      server.child.kill("SIGKILL");
      await new Promise((resolve) => server.child.once("exit", resolve));
      logs.push(server.stdout() + server.stderr());
      server = start();
      await server.url;
      kills.push({ ...point, restartMs: Date.now() - killedAt });
    }
    await done;
    logs.push(server.stdout() + server.stderr());
    const tally = await burst.tally();
    await client.close();
    const restarts = kills.map(({ restartMs }) => `${(restartMs / 1000).toFixed(1)} s`).join(" / ");
    console.log(figures("local", "1 server on --data", kills, tally, `kill to listening again ${restarts}`));

    expectExact(burst, tally, kills);
    // The restarted controller found the revisions minted before the kill in its first list: it never tried
    // to mint one again, and no sync failed.
    expect(logs.join("\n")).not.toMatch(/AlreadyExists|sync failed|sync will be retried/);
  }, 180_000);
});
