// A work queue of keys in the shape of client-go's: a key waits at most once, a key being processed is
// never handed out twice (an add meanwhile runs it again afterwards), and failures back off per key.
import { backoffStep } from "../sdk/shared/retry";
import type { QueueObserver } from "./metrics";

export interface BackoffOptions {
  /** Delay after the first failure of a key; doubles with each further failure. Default 1 s. */
  baseDelayMs?: number;
  /** Ceiling of the delay. Default 5 min. */
  maxDelayMs?: number;
}

const DEFAULT_BASE_DELAY_MS = 1_000;
const DEFAULT_MAX_DELAY_MS = 300_000;

export class WorkQueue {
  private readonly order: string[] = [];
  /** Keys that must be processed (again): waiting in `order`, or re-added while processing. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  /** Keys `addAfter` will add, with when. */
  private readonly delayed = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private getters: ((key: string | undefined) => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private readonly backoff: Required<BackoffOptions>;
  /** With metrics (metrics.ts): when each waiting key was added, when each key being processed started. */
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly unobserve: (() => void) | undefined;

  constructor(
    options: BackoffOptions = {},
    private readonly observer?: QueueObserver,
  ) {
    this.backoff = {
      baseDelayMs: options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    };
    this.unobserve = observer?.source(() => ({
      depth: this.order.length,
      processingSince: this.startedAt.values(),
    }));
  }

  add(key: string): void {
    this.enqueue(key, true);
  }

  /** `counted`: a new add (false when `done` queues a key added again while it was processed). */
  private enqueue(key: string, counted: boolean): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.observer) {
      if (counted) this.observer.added();
      if (counted || !this.addedAt.has(key)) this.addedAt.set(key, Date.now());
    }
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter) this.handOut(key, getter);
    else this.order.push(key);
  }

  /** The next key, marked as processing until `done`; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const key = this.order.shift();
      if (key === undefined) this.getters.push(resolve);
      else this.handOut(key, resolve);
    });
  }

  done(key: string): void {
    this.processing.delete(key);
    const started = this.startedAt.get(key);
    if (started !== undefined) {
      this.startedAt.delete(key);
      this.observer?.finished((Date.now() - started) / 1000);
    }
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.enqueue(key, false);
    }
    this.notifyIfIdle();
  }

  /** Adds the key again after its backoff; returns the delay. Each call doubles the next one. */
  retryLater(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    this.observer?.retried();
    const delay = backoffStep(failures, this.backoff);
    clearTimeout(this.retries.get(key));
    const timer = setTimeout(() => {
      this.retries.delete(key);
      this.add(key);
    }, delay);
    // A pending retry must not keep the process alive on its own.
    timer.unref();
    this.retries.set(key, timer);
    return delay;
  }

  /**
   * Adds the key once `delayMs` has passed (client-go's AddAfter), for work that is due later rather than
   * failed. Of two delayed adds of a key, the earlier stands.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    const due = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending !== undefined && pending.due <= due) return;
    clearTimeout(pending?.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.delayed.set(key, { timer, due });
  }

  /** Whether a retry of the key waits for its backoff (`retryLater` was called and has not fired yet). */
  retryPending(key: string): boolean {
    return this.retries.has(key);
  }

  /** The key succeeded, or failed in a way no retry fixes: its backoff starts over and no retry is pending. */
  forget(key: string): void {
    this.failures.delete(key);
    clearTimeout(this.retries.get(key));
    this.retries.delete(key);
  }

  /** Resolves when no key waits and none is processing; retries still in backoff do not count. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.order.length = 0;
    this.dirty.clear();
    this.unobserve?.();
    for (const getter of this.getters.splice(0)) getter(undefined);
    this.notifyIfIdle(true);
  }

  private handOut(key: string, getter: (key: string) => void): void {
    this.dirty.delete(key);
    this.processing.add(key);
    if (this.observer) {
      const now = Date.now();
      const added = this.addedAt.get(key);
      this.addedAt.delete(key);
      this.observer.started(added === undefined ? 0 : (now - added) / 1000);
      this.startedAt.set(key, now);
    }
    getter(key);
  }

  /** No key waits and none is processing (retries in backoff and delayed adds do not count). */
  isIdle(): boolean {
    return this.order.length === 0 && this.processing.size === 0;
  }

  private notifyIfIdle(force = false): void {
    if (!force && !this.isIdle()) return;
    for (const waiter of this.idleWaiters.splice(0)) waiter();
  }
}
