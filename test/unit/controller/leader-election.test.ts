// The election's timing on a virtual clock against an in-memory Lease API that keeps resourceVersions as
// kube-apiserver does (create refuses a taken name, replace a stale version).
import { afterEach, describe, expect, it } from "vitest";
import {
  type Clock,
  type ElectionEnd,
  LEADER_ELECTION_DEFAULTS,
  runLeaderElection,
} from "../../../controller/leader-election";
import type { Lease, LeaseClient } from "../../../sdk/client";

const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = LEADER_ELECTION_DEFAULTS;
/** The longest wait between two attempts to acquire: retryPeriod * 2.2 (client-go's jitter). */
const MAX_ACQUIRE_WAIT_MS = retryPeriodMs * 2.2;

/** Lets every promise that can settle, settle. */
const settle = async () => {
  for (let round = 0; round < 20; round++) await new Promise((resolve) => setImmediate(resolve));
};

class VirtualClock implements Clock {
  private time = 0;
  private timers: { at: number; resolve: () => void }[] = [];

  now = () => this.time;

  sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = { at: this.time + ms, resolve };
      this.timers.push(timer);
      signal?.addEventListener("abort", () => {
        this.timers = this.timers.filter((other) => other !== timer);
        resolve();
      });
    });

  /** Moves time forward `ms`, firing each timer due in order and letting what it wakes run. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const next = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.time = next.at;
      next.resolve();
    }
    this.time = end;
    await settle();
  }
}

const apiError = (reason: string) => Object.assign(new Error(reason), { reason });

/** One Lease API shared by the replicas; each replica's view can be cut off (its calls then hang). */
class LeaseApi {
  lease: Lease | undefined;
  private version = 0;
  readonly cutOff = new Set<string>();

  clientFor(replica: string): LeaseClient {
    const reachable = (signal?: AbortSignal) =>
      this.cutOff.has(replica)
        ? new Promise<never>((_, reject) =>
            signal?.addEventListener("abort", () => reject(signal.reason), { once: true }),
          )
        : Promise.resolve();
    const stored = (lease: Lease) => {
      this.lease = structuredClone({
        ...lease,
        metadata: { ...lease.metadata, resourceVersion: String(++this.version) },
      });
      return structuredClone(this.lease);
    };
    return {
      get: async (_namespace, _name, signal) => {
        await reachable(signal);
        return structuredClone(this.lease);
      },
      create: async (lease, signal) => {
        await reachable(signal);
        if (this.lease) throw apiError("AlreadyExists");
        return stored(lease);
      },
      replace: async (lease, signal) => {
        await reachable(signal);
        if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion)
          throw apiError("Conflict");
        return stored(lease);
      },
    };
  }
}

interface Replica {
  leadingSince?: number;
  end?: ElectionEnd;
  endedAt?: number;
  stop: AbortController;
}

describe("leader election on a Lease", () => {
  let clock: VirtualClock;
  let api: LeaseApi;
  const replicas: Replica[] = [];

  afterEach(async () => {
    for (const replica of replicas.splice(0)) replica.stop.abort();
    await clock.advance(0);
  });

  function start(identity: string): Replica {
    const replica: Replica = { stop: new AbortController() };
    replicas.push(replica);
    void runLeaderElection(
      { leases: api.clientFor(identity), namespace: "ns", name: "lease", identity, clock, random: () => 0.5 },
      () => {
        replica.leadingSince = clock.now();
      },
      replica.stop.signal,
    ).then((end) => {
      replica.end = end;
      replica.endedAt = clock.now();
    });
    return replica;
  }

  const fresh = () => {
    clock = new VirtualClock();
    api = new LeaseApi();
  };

  /** A leader that has led for 10 s, and a replica waiting beside it. */
  async function leaderAndStandby(): Promise<{ leader: Replica; standby: Replica }> {
    fresh();
    const leader = start("leader");
    await clock.advance(0);
    const standby = start("standby");
    await clock.advance(10_000);
    return { leader, standby };
  }

  it("gives a free lease to the first replica at once; the other waits while the leader renews", async () => {
    fresh();
    const first = start("first");
    await clock.advance(0);
    const second = start("second");
    await clock.advance(60_000);
    expect(first.leadingSince).toBe(0);
    expect(second.leadingSince).toBeUndefined();
    expect(api.lease?.spec).toMatchObject({
      holderIdentity: "first",
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: "1970-01-01T00:00:00.000000Z",
    });
    // Renewed every retryPeriod: the last renewal is at most one period old.
    const renewed = Date.parse(api.lease?.spec.renewTime ?? "");
    expect(clock.now() - renewed).toBeLessThanOrEqual(retryPeriodMs);
  });

  it("lets two replicas starting together on a missing lease elect exactly one", async () => {
    fresh();
    const both = [start("a"), start("b")];
    await clock.advance(30_000);
    expect(both.filter((replica) => replica.leadingSince !== undefined)).toHaveLength(1);
  });

  it("replaces a leader that stops renewing after the lease expires, and the old one stops first", async () => {
    const { leader, standby } = await leaderAndStandby();
    const lastRenewal = Date.parse(api.lease?.spec.renewTime ?? "");
    api.cutOff.add("leader");
    await clock.advance(60_000);

    // The leader gives up once renewDeadline passed without a renewal...
    expect(leader.end).toBe("lost");
    expect(leader.endedAt).toBeLessThanOrEqual(lastRenewal + retryPeriodMs + renewDeadlineMs);
    // ...before the standby may take over: after the lease's duration seen unchanged, within one more wait.
    const takeover = standby.leadingSince ?? Number.NaN;
    expect(takeover).toBeGreaterThan(leader.endedAt ?? Number.NaN);
    expect(takeover - lastRenewal).toBeGreaterThanOrEqual(leaseDurationMs);
    expect(takeover - lastRenewal).toBeLessThanOrEqual(leaseDurationMs + 2 * MAX_ACQUIRE_WAIT_MS);
    expect(api.lease?.spec).toMatchObject({ holderIdentity: "standby", leaseTransitions: 1 });
  });

  it("keeps leading through failed renewals shorter than the renew deadline", async () => {
    fresh();
    const leader = start("leader");
    await clock.advance(5_000);
    api.cutOff.add("leader");
    await clock.advance(renewDeadlineMs - retryPeriodMs - 1);
    api.cutOff.delete("leader");
    await clock.advance(60_000);
    expect(leader.end).toBeUndefined();
    expect(api.lease?.spec.holderIdentity).toBe("leader");
  });

  it("releases the lease when stopped, so the standby takes over within one wait", async () => {
    const { leader, standby } = await leaderAndStandby();
    leader.stop.abort();
    await clock.advance(0);
    expect(leader.end).toBe("stopped");
    expect(api.lease?.spec.holderIdentity).toBe("");
    const releasedAt = clock.now();
    await clock.advance(MAX_ACQUIRE_WAIT_MS);
    expect((standby.leadingSince ?? Number.NaN) - releasedAt).toBeLessThanOrEqual(MAX_ACQUIRE_WAIT_MS);
  });

  it("never acquires when stopped while waiting", async () => {
    const { standby } = await leaderAndStandby();
    standby.stop.abort();
    await clock.advance(60_000);
    expect(standby.end).toBe("stopped");
    expect(standby.leadingSince).toBeUndefined();
  });
});
