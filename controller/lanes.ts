// Calls to hosts outside the API (registries) run here, never in a sync worker: per remote host a lane of
// at most `perHost` calls at once, each under a deadline, the rest queued in order. Equal calls (same key)
// share one request. A host whose calls keep failing (no answer, a connection refused, 5xx) is backed off
// as a host: the calls queued for it wait until the backoff is over, whichever Service made them, and one
// answer of any kind ends the backoff. A host that hangs fills its own lane only.
import { backoffStep } from "../sdk/shared/retry";

/** What a caller waits for, for its status: the host, what is asked, since when, and why it is not done. */
export interface LaneWait {
  host: string;
  /** What the call asks, for people ("tag v1 of 127.0.0.1:5000/team/app"). */
  what: string;
  /** Date.now() when the call was first made. */
  since: number;
  /** asking: a request is out; queued: `ahead` calls of the host go first; backedOff: until `until`. */
  state: "asking" | "queued" | "backedOff";
  ahead?: number;
  until?: number;
  /** The host's failures in a row (backedOff). */
  failures?: number;
}

export interface LaneOptions {
  /** Calls to one host at once. Default 4. */
  perHost?: number;
  /** Deadline of one call, all its retries included. Default 30 s. */
  deadlineMs?: number;
  /** The first host backoff, doubling with each failed call in a row. Default 2 s. */
  hostBackoffBaseMs?: number;
  /** Ceiling of a host backoff. Default 5 min. */
  hostBackoffMaxMs?: number;
  /** Aborting stops the lanes: calls under way are aborted, queued ones never run. */
  signal: AbortSignal;
  /** Told of each call's end: its host, and whether the host failed it (metrics). */
  onCall?: (host: string, failed: boolean) => void;
}

export const LANE_DEFAULTS = {
  perHost: 4,
  deadlineMs: 30_000,
  hostBackoffBaseMs: 2_000,
  hostBackoffMaxMs: 300_000,
} as const;

/** What a call does: `signal` aborts at the deadline or when the lanes stop. */
export type LaneWork<T> = (signal: AbortSignal) => Promise<T>;

export interface LaneCall<T> {
  host: string;
  /** Equal keys share one call while it is queued or under way. */
  key: string;
  what: string;
  work: LaneWork<T>;
  /** The answer when the deadline passed first. */
  onDeadline(deadlineMs: number): T;
  /** Whether the answer counts as a failure of the host (it did not answer, or answered 5xx). */
  hostFailed(result: T): boolean;
}

interface Job {
  call: LaneCall<unknown>;
  since: number;
  started: boolean;
  promise: Promise<unknown>;
  start(): void;
}

interface Host {
  running: number;
  queue: Job[];
  failures: number;
  until: number;
  timer: NodeJS.Timeout | undefined;
}

/** Thrown by a call's promise when the lanes stop before it ends. */
export class LanesStopped extends Error {
  override name = "LanesStopped";
}

export class HostLanes {
  private readonly hosts = new Map<string, Host>();
  private readonly jobs = new Map<string, Job>();
  private readonly perHost: number;
  private readonly deadlineMs: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: LaneOptions) {
    this.perHost = options.perHost ?? LANE_DEFAULTS.perHost;
    this.deadlineMs = options.deadlineMs ?? LANE_DEFAULTS.deadlineMs;
    this.baseMs = options.hostBackoffBaseMs ?? LANE_DEFAULTS.hostBackoffBaseMs;
    this.maxMs = options.hostBackoffMaxMs ?? LANE_DEFAULTS.hostBackoffMaxMs;
    options.signal.addEventListener(
      "abort",
      () => {
        for (const host of this.hosts.values()) clearTimeout(host.timer);
        this.notifyIfIdle();
      },
      { once: true },
    );
  }

  /**
   * Runs the call in its host's lane, or joins the equal call queued or under way. Rejects with
   * `LanesStopped` when the lanes stop first.
   */
  run<T>(call: LaneCall<T>): Promise<T> {
    const joined = this.jobs.get(call.key);
    if (joined) return joined.promise as Promise<T>;
    if (this.options.signal.aborted) return Promise.reject(new LanesStopped("the controller is stopping"));
    const host = this.hostOf(call.host);
    let start: () => void = () => {};
    const promise = new Promise<T>((resolve, reject) => {
      start = () => {
        job.started = true;
        host.running++;
        void this.execute(call).then(
          (result) => {
            this.settle(call, host, result);
            resolve(result);
          },
          (error: unknown) => {
            this.settle(call, host, undefined);
            reject(error);
          },
        );
      };
    });
    const job: Job = { call: call as LaneCall<unknown>, since: Date.now(), started: false, promise, start };
    // A rejection nobody awaits (a stop) must not end the process.
    promise.catch(() => {});
    this.jobs.set(call.key, job);
    host.queue.push(job);
    this.pump(call.host, host);
    return promise;
  }

  /** Where the call with this key stands; undefined when none is queued or under way. */
  wait(key: string): LaneWait | undefined {
    const job = this.jobs.get(key);
    if (!job) return undefined;
    const { host: name, what } = job.call;
    const base = { host: name, what, since: job.since };
    if (job.started) return { ...base, state: "asking" };
    const host = this.hosts.get(name);
    if (host && host.until > Date.now())
      return { ...base, state: "backedOff", until: host.until, failures: host.failures };
    return { ...base, state: "queued", ahead: host ? host.queue.indexOf(job) : 0 };
  }

  /** Whether no call is queued or under way. */
  /** Each host with calls under way, waiting or failing: what the lane gauges show. */
  states(): { host: string; running: number; queued: number; failures: number; backedOff: boolean }[] {
    const now = Date.now();
    return [...this.hosts].map(([host, state]) => ({
      host,
      running: state.running,
      queued: state.queue.length,
      failures: state.failures,
      backedOff: state.until > now,
    }));
  }

  isIdle(): boolean {
    return this.jobs.size === 0 || this.options.signal.aborted;
  }

  /** Resolves once no call is queued or under way (or the lanes stopped). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private hostOf(name: string): Host {
    let host = this.hosts.get(name);
    if (!host) {
      host = { running: 0, queue: [], failures: 0, until: 0, timer: undefined };
      this.hosts.set(name, host);
    }
    return host;
  }

  private async execute<T>(call: LaneCall<T>): Promise<T> {
    const deadline = AbortSignal.timeout(this.deadlineMs);
    const signal = AbortSignal.any([this.options.signal, deadline]);
    try {
      const result = await call.work(signal);
      if (this.options.signal.aborted) throw new LanesStopped("the controller is stopping");
      return result;
    } catch (error) {
      if (this.options.signal.aborted) throw new LanesStopped("the controller is stopping");
      if (deadline.aborted) return call.onDeadline(this.deadlineMs);
      throw error;
    }
  }

  private settle<T>(call: LaneCall<T>, host: Host, result: T | undefined): void {
    host.running--;
    this.jobs.delete(call.key);
    if (result !== undefined && !this.options.signal.aborted) {
      this.options.onCall?.(call.host, call.hostFailed(result));
      if (call.hostFailed(result)) {
        host.failures++;
        const delay = backoffStep(host.failures - 1, { baseDelayMs: this.baseMs, maxDelayMs: this.maxMs });
        host.until = Math.max(host.until, Date.now() + delay);
      } else {
        host.failures = 0;
        host.until = 0;
      }
    }
    this.pump(call.host, host);
    if (host.running === 0 && host.queue.length === 0 && host.failures === 0) this.hosts.delete(call.host);
    this.notifyIfIdle();
  }

  /** Starts queued calls while the host has room and is not backed off. */
  private pump(name: string, host: Host): void {
    if (this.options.signal.aborted) return;
    const wait = host.until - Date.now();
    if (wait > 0) {
      if (host.queue.length > 0 && host.timer === undefined) {
        host.timer = setTimeout(() => {
          host.timer = undefined;
          this.pump(name, host);
        }, wait);
        host.timer.unref();
      }
      return;
    }
    while (host.running < this.perHost) {
      const job = host.queue.shift();
      if (!job) break;
      job.start();
    }
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    for (const waiter of this.idleWaiters.splice(0)) waiter();
  }
}
