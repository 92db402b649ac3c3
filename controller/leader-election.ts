// Leader election through a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it, so that
// of several replicas of the controller one acts and the others wait:
// - a replica takes the Lease by creating it, or by replacing it (with its resourceVersion, so two
//   replicas cannot both win) once its holder let it go or let it expire;
// - expiry is judged by this replica's own clock: the holder's record must stay unchanged for
//   leaseDuration since this replica last saw it change (no trust in other machines' clocks);
// - the leader renews every retryPeriod; when no renewal succeeds for renewDeadline (< leaseDuration) it
//   has lost the lease and must stop acting before another replica may take it over.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { LeaseClient, LeaseSpec } from "../sdk/client";
import { type ControllerLogger, silentLogger } from "./logger";
import { abortion } from "./signals";

/** The Lease the controller's replicas share, in SECRETS_NAMESPACE. */
export const DEFAULT_LEASE_NAME = "exampledev-controller";

/** client-go's defaults (and kube-controller-manager's). */
export const LEADER_ELECTION_DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
} as const;

/** client-go's wait.JitterUntil factor for the attempts to acquire: a wait of retryPeriod * [1, 2.2). */
const ACQUIRE_JITTER = 1.2;

/** Time as the election sees it; tests pass a virtual one. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
    }),
};

/** This replica's name in the Lease, as client-go's callers make it: unique even for two on one host. */
export function replicaIdentity(): string {
  return `${hostname()}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

export interface LeaderElectionOptions {
  leases: LeaseClient;
  namespace: string;
  name: string;
  /** Unique per replica: `hostname_pid_random` (see `replicaIdentity`). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  random?: () => number;
  log?: ControllerLogger;
}

/**
 * How an election ended: `lost`, the lease could not be renewed in time (stop acting at once; client-go
 * exits the process); `stopped`, the caller's signal aborted (after releasing the lease if held).
 */
export type ElectionEnd = "lost" | "stopped";

/**
 * Waits to acquire the lease, calls `onStartedLeading`, then renews until the lease is lost or `signal`
 * aborts. The signal given to `onStartedLeading` aborts when leadership ends. On `signal` the lease is
 * released (holder cleared, so another replica takes over at once): abort it only once the work the lease
 * guards has stopped, as client-go's ReleaseOnCancel asks.
 */
export async function runLeaderElection(
  options: LeaderElectionOptions,
  onStartedLeading: (leading: AbortSignal) => void,
  signal: AbortSignal,
): Promise<ElectionEnd> {
  const elector = new LeaseElector(options);
  if (!(await elector.acquire(signal))) return "stopped";
  const leading = new AbortController();
  onStartedLeading(leading.signal);
  const end = await elector.renew(signal);
  leading.abort(new Error(end === "lost" ? "lost the lease" : "stopping"));
  if (end === "stopped") await elector.release();
  return end;
}

class LeaseElector {
  private readonly clock: Clock;
  private readonly log: ControllerLogger;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly random: () => number;
  /**
   * How long one try may take: half the renew deadline, so one hung connection leaves time for another
   * try before the deadline.
   */
  private readonly attemptMs: number;
  /** The record last seen, and when this replica saw it change. */
  private observed: { spec: LeaseSpec; resourceVersion: string | undefined; at: number } | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.clock = options.clock ?? realClock;
    this.log = options.log ?? silentLogger;
    this.leaseDurationMs = options.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs;
    this.random = options.random ?? Math.random;
    this.attemptMs = this.renewDeadlineMs / 2;
    if (!(this.renewDeadlineMs < this.leaseDurationMs && this.retryPeriodMs < this.renewDeadlineMs))
      throw new RangeError("leader election needs retryPeriod < renewDeadline < leaseDuration");
  }

  /** Tries every retryPeriod (jittered) until it holds the lease; false when `signal` aborted first. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    const { namespace, name, identity } = this.options;
    this.log.info({ lease: `${namespace}/${name}`, identity }, "waiting to acquire the lease");
    while (!signal.aborted) {
      if (await this.attempt(this.attemptMs, signal)) {
        this.log.info({ lease: `${namespace}/${name}`, identity }, "acquired the lease: leading");
        return true;
      }
      await this.clock.sleep(this.retryPeriodMs * (1 + this.random() * ACQUIRE_JITTER), signal);
    }
    return false;
  }

  /** Renews every retryPeriod until a renewal fails for renewDeadline (`lost`) or `signal` aborts. */
  async renew(signal: AbortSignal): Promise<ElectionEnd> {
    while (!signal.aborted) {
      const deadline = this.clock.now() + this.renewDeadlineMs;
      let renewed = false;
      // As client-go's PollImmediateUntil: try at once, then every retryPeriod until the deadline.
      for (let left = this.renewDeadlineMs; left > 0 && !signal.aborted; left = deadline - this.clock.now()) {
        renewed = await this.attempt(Math.min(left, this.attemptMs), signal);
        if (renewed) break;
        await this.clock.sleep(Math.min(this.retryPeriodMs, deadline - this.clock.now()), signal);
      }
      if (signal.aborted) break;
      if (!renewed) {
        this.log.error(
          { lease: `${this.options.namespace}/${this.options.name}`, renewDeadlineMs: this.renewDeadlineMs },
          "could not renew the lease in time: leadership lost",
        );
        return "lost";
      }
      await this.clock.sleep(this.retryPeriodMs, signal);
    }
    return "stopped";
  }

  /** Gives the lease up if this replica holds it, so another takes over without waiting for expiry. */
  async release(): Promise<void> {
    const { namespace, name, identity, leases } = this.options;
    try {
      const current = await leases.get(namespace, name);
      if (current?.spec.holderIdentity !== identity) return;
      const now = microTime(this.clock.now());
      await leases.replace({
        ...current,
        spec: {
          ...current.spec,
          holderIdentity: "",
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
        },
      });
      this.log.info({ lease: `${namespace}/${name}`, identity }, "released the lease");
    } catch (error) {
      // It expires on its own after leaseDuration.
      this.log.warn({ lease: `${namespace}/${name}`, error: String(error) }, "could not release the lease");
    }
  }

  /** One try to acquire or renew, given up after `withinMs`. */
  private async attempt(withinMs: number, signal: AbortSignal): Promise<boolean> {
    const deadline = new AbortController();
    void this.clock.sleep(withinMs, deadline.signal).then(() => deadline.abort(new Error("deadline passed")));
    const bounded = AbortSignal.any([signal, deadline.signal]);
    try {
      return await Promise.race([this.tryAcquireOrRenew(bounded), abortion(bounded).then(() => false)]);
    } catch (error) {
      this.log.warn(
        { lease: `${this.options.namespace}/${this.options.name}`, error: String(error) },
        "lease write failed",
      );
      return false;
    } finally {
      deadline.abort();
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { leases, namespace, name, identity } = this.options;
    const now = this.clock.now();
    const spec = (acquireTime: number | string, leaseTransitions: number): LeaseSpec => ({
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: typeof acquireTime === "string" ? acquireTime : microTime(acquireTime),
      renewTime: microTime(now),
      leaseTransitions,
    });
    const current = await leases.get(namespace, name, signal);
    if (current === undefined) {
      const created = await leases.create(
        {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { namespace, name },
          spec: spec(now, 0),
        },
        signal,
      );
      this.observe(created.spec, created.metadata.resourceVersion, now);
      return true;
    }
    this.observe(current.spec, current.metadata.resourceVersion, now);
    const holder = current.spec.holderIdentity;
    const leading = holder === identity;
    const durationMs = (current.spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder && !leading && (this.observed?.at ?? now) + durationMs > now) return false;
    const transitions = current.spec.leaseTransitions ?? 0;
    const replaced = await leases.replace(
      {
        ...current,
        spec: leading ? spec(current.spec.acquireTime ?? now, transitions) : spec(now, transitions + 1),
      },
      signal,
    );
    this.observe(replaced.spec, replaced.metadata.resourceVersion, now);
    return true;
  }

  /** Records the lease as seen at `now`; the time moves only when the record changed. */
  private observe(spec: LeaseSpec, resourceVersion: string | undefined, now: number): void {
    if (this.observed && this.observed.resourceVersion === resourceVersion) return;
    const previousHolder = this.observed?.spec.holderIdentity;
    this.observed = { spec, resourceVersion, at: now };
    if (
      spec.holderIdentity &&
      spec.holderIdentity !== previousHolder &&
      spec.holderIdentity !== this.options.identity
    )
      this.log.info(
        { lease: `${this.options.namespace}/${this.options.name}`, holder: spec.holderIdentity },
        "the lease is held by another replica",
      );
  }
}

/** Kubernetes' MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
