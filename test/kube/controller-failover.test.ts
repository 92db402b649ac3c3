import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LEASE_NAME } from "../../controller/leader-election";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { type Client, ConflictError, createClient, type Lease } from "../../sdk/client";
import { SECRETS_NAMESPACE } from "../../sdk/schema";
import { type ControllerProcess, pidOf, spawnController, until } from "../helpers/controller-process";
import {
  expectExact,
  FAILOVER_PLAN,
  FailoverBurst,
  figures,
  type KillPoint,
} from "../helpers/failover-burst";
import { type Registry, type SlowManifests, slowManifests, startRegistry } from "../helpers/registry";

/**
 * Three replicas of `exampledev-controller` (default workers) against kube-apiserver, as the controller's
 * service account (deploy/identities.ts's RBAC): one leads, two wait. A burst of creates and template changes
 * of Services whose sources are OCI tags on slow registries runs; the leader is killed (SIGKILL, no release)
 * while tag resolutions are under way, then the replica that took over is killed the same way, and the last
 * one finishes. Every Service ends with exactly one revision per (template, digest) it went through, none
 * twice, none missing, and its status names the last one, live and accepted for its generation.
 */

const REPLICAS = 3;
/** The spec's "within about 15 s" (lease duration, then the next try), with room for a loaded machine. */
const TAKEOVER_BOUND_MS = 25_000;

// Replicas on one machine: no health endpoint, so no port to share (it defaults to 8081).
const spawnReplica = (kubeconfig: string) => spawnController(kubeconfig, ["--health-port", "0"]);

const isGone = (pid: number | undefined) => {
  try {
    process.kill(pid ?? 0, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
};

/** Lines of a replica's log that would show a mint tried twice or a sync that failed. */
const syncTrouble = (log: string) =>
  log
    .split("\n")
    // Replicas started together may all create the lease, and all but one get 409: the lease's conflict.
    .filter((line) => !line.includes('"msg":"lease write failed"'))
    .filter((line) => /AlreadyExists|sync failed|sync will be retried/.test(line));

describe("exampledev-controller replicas on kube-apiserver", () => {
  let api: KubeApi;
  let admin: Client;
  let registry: Registry;
  const hosts: SlowManifests[] = [];
  const replicas: ControllerProcess[] = [];

  beforeAll(async () => {
    [api, registry] = await Promise.all([startKubeApi(), startRegistry()]);
    admin = createClient({ baseUrl: api.url, token: api.token, ca: api.caCert });
    for (let seed = 1; seed <= FAILOVER_PLAN.hosts; seed++)
      hosts.push(await slowManifests(registry, { ...FAILOVER_PLAN.delay, seed }));
  });
  afterAll(async () => {
    for (const { child } of replicas)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await admin?.close();
    await api?.close();
    await Promise.all(hosts.map((host) => host.close()));
    await registry?.stop();
  });

  const lease = () => admin.leases.get(SECRETS_NAMESPACE, DEFAULT_LEASE_NAME);
  const leader = async () => {
    const holder = await until("a replica to hold the lease", async () => {
      const identity = (await lease())?.spec.holderIdentity;
      return identity || undefined;
    });
    const replica = replicas.find(({ child }) => child.pid === pidOf(holder));
    if (!replica) throw new Error(`no replica has the pid of the lease's holder ${holder}`);
    return { holder, replica };
  };

  it("fails over twice during a burst with registry calls out, and mints every (template, digest) once", async () => {
    for (let index = 0; index < REPLICAS; index++) replicas.push(spawnReplica(api.controllerKubeconfig));
    let current = await leader();
    const burst = new FailoverBurst(admin, {
      registry,
      hosts,
      timeoutMs: 150_000,
    });
    const done = burst.run();
    const kills: (KillPoint & { takeoverMs: number })[] = [];
    const killed: ControllerProcess[] = [];
    for (const share of FAILOVER_PLAN.killAt) {
      // Killed while the burst is partway and the leader has registry calls out.
      const point = await burst.killPoint(share);
      const killedAt = Date.now();
      current.replica.child.kill("SIGKILL");
      killed.push(current.replica);
      const before = current.holder;
      const taken: Lease = await until("another replica to take the lease", async () => {
        const now = await lease();
        return now?.spec.holderIdentity && now.spec.holderIdentity !== before ? now : undefined;
      });
      current = await leader();
      expect(killed).not.toContain(current.replica);
      kills.push({ ...point, takeoverMs: Date.parse(taken.spec.acquireTime ?? "") - killedAt });
    }
    await done;
    const tally = await burst.tally();
    const takeovers = kills.map(({ takeoverMs }) => `${(takeoverMs / 1000).toFixed(1)} s`).join(" / ");
    console.log(figures("kube", `${REPLICAS} replicas`, kills, tally, `takeover ${takeovers}`));

    expectExact(burst, tally, kills);
    expect((await lease())?.spec.leaseTransitions).toBe(FAILOVER_PLAN.killAt.length);
    for (const { takeoverMs } of kills) {
      expect(takeoverMs).toBeLessThan(TAKEOVER_BOUND_MS);
      // Not before the lease expired: 15 s after the last renewal, which was one 2 s period (plus the time a
      // renewal takes) before the kill at most.
      expect(takeoverMs).toBeGreaterThan(10_000);
    }
    // Each replica that took over found the earlier leaders' revisions in its first list: it never tried to
    // mint one again, and no sync failed.
    for (const replica of replicas) expect(syncTrouble(replica.log())).toEqual([]);

    current.replica.child.kill("SIGTERM");
    expect(await current.replica.exited).toEqual({ code: 0, signal: null });
    for (const replica of killed) expect(await replica.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(replicas.every(({ child }) => isGone(child.pid))).toBe(true);
    // A replica that stops releases the lease: a successor need not wait for it to expire.
    expect((await lease())?.spec.holderIdentity).toBe("");
  });

  it("exits with code 1 when its lease is taken by another holder, as client-go's controllers do", async () => {
    const replica = spawnReplica(api.controllerKubeconfig);
    replicas.push(replica);
    await until("the replica to lead", async () => {
      const current = await lease();
      return pidOf(current?.spec.holderIdentity ?? "") === replica.child.pid ? current : undefined;
    });
    // Another holder wrote the lease (as after a partition the replica did not notice): it cannot renew. The
    // replica renews every 2 s, so a read can be stale by the write: read again on a conflict.
    await until("the lease taken from the replica", async () => {
      const current = await lease();
      if (!current) return undefined;
      const taken = { ...current, spec: { ...current.spec, holderIdentity: "elsewhere_1_0" } };
      return admin.leases.replace(taken).catch((error: unknown) => {
        if (error instanceof ConflictError) return undefined;
        throw error;
      });
    });
    expect(await replica.exited).toEqual({ code: 1, signal: null });
    expect(replica.log()).toContain("lost the lease: exiting");
    expect(isGone(replica.child.pid)).toBe(true);
  });
});
