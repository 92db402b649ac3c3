// The controller command's /healthz and /readyz, on replicas run as the command runs them
// (runElectedController) against an in-memory Lease and lists that answer when the test lets them: a new
// leader is not ready until its caches hold their first lists, a standby is ready, a stopped one neither.
import { afterEach, describe, expect, it } from "vitest";
import { type ElectedController, runElectedController } from "../../../controller/elected";
import { type HealthServer, startHealthServer } from "../../../controller/health";
import { abortion } from "../../../controller/signals";
import type { Client, Lease, LeaseClient } from "../../../sdk/client";

const apiError = (reason: string) => Object.assign(new Error(reason), { reason });

/** One Lease shared by the replicas, with resourceVersions as kube-apiserver keeps them. */
function memoryLeases(): LeaseClient {
  let stored: Lease | undefined;
  let version = 0;
  const store = (lease: Lease) => {
    stored = structuredClone({
      ...lease,
      metadata: { ...lease.metadata, resourceVersion: String(++version) },
    });
    return structuredClone(stored);
  };
  return {
    get: async () => structuredClone(stored),
    create: async (lease) => {
      if (stored) throw apiError("AlreadyExists");
      return store(lease);
    },
    replace: async (lease) => {
      if (lease.metadata.resourceVersion !== stored?.metadata.resourceVersion) throw apiError("Conflict");
      return store(lease);
    },
  };
}

/** A client whose lists of Services and ServiceRevisions answer (empty) once `release` is called. */
function gatedClient(leases: LeaseClient) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const kind = {
    list: async ({ signal }: { signal: AbortSignal }) => {
      await Promise.race([released, abortion(signal)]);
      signal.throwIfAborted();
      return { items: [], metadata: { resourceVersion: "1" } };
    },
    // A watch that sends nothing until the informer stops.
    watch: async ({ signal }: { signal: AbortSignal }) => ({
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          await abortion(signal);
          return { done: true, value: undefined };
        },
      }),
    }),
  };
  const client = { services: kind, serviceRevisions: kind, leases, secretValues: async () => ({}) };
  return { client: client as unknown as Client, release };
}

const running: { replica: ElectedController; health: HealthServer }[] = [];

async function startReplica(identity: string, client: Client) {
  const replica = runElectedController({
    client,
    controller: { tagPollIntervalMs: 0 },
    election: { namespace: "exampledev-system", name: "exampledev-controller", identity },
  });
  const health = await startHealthServer({ address: "127.0.0.1", port: 0 }, replica.phase);
  running.push({ replica, health });
  const get = async (path: string) => {
    const answer = await fetch(`${health.url}${path}`);
    return [answer.status, (await answer.text()).trim()];
  };
  return { replica, get };
}

afterEach(async () => {
  for (const { replica, health } of running.splice(0)) {
    await replica.stop();
    await health.close();
  }
});

describe("the controller's health endpoint", () => {
  it("is live throughout, and ready once the leader's caches are synced", async () => {
    const { client, release } = gatedClient(memoryLeases());
    const { replica, get } = await startReplica("leader", client);
    await expect.poll(() => replica.phase()).toBe("syncing");
    expect(await get("/readyz")).toEqual([503, "leading; the caches are not synced yet"]);
    expect(await get("/healthz")).toEqual([200, "ok"]);

    release();
    await expect.poll(() => get("/readyz")).toEqual([200, "ok: leading"]);
    expect(await get("/healthz")).toEqual([200, "ok"]);
  });

  it("is ready as a standby waiting for the Lease", async () => {
    const leases = memoryLeases();
    const leader = await startReplica("leader", gatedClient(leases).client);
    await expect.poll(() => leader.replica.phase()).toBe("syncing");
    // Its lists never answer: a standby opens no informer, so it is ready all the same.
    const standby = await startReplica("standby", gatedClient(leases).client);
    expect(standby.replica.phase()).toBe("standby");
    expect(await standby.get("/readyz")).toEqual([200, "ok: standby, waiting for the Lease"]);
    expect(await standby.get("/healthz")).toEqual([200, "ok"]);
  });

  it("is neither live nor ready once stopped, and knows only its two paths", async () => {
    const { client, release } = gatedClient(memoryLeases());
    release();
    const { replica, get } = await startReplica("leader", client);
    await expect.poll(() => get("/readyz")).toEqual([200, "ok: leading"]);
    expect(await get("/metrics")).toEqual([404, "not found"]);
    await replica.stop();
    expect(await get("/healthz")).toEqual([500, "the election loop has ended"]);
    expect(await get("/readyz")).toEqual([503, "stopping"]);
  });
});
