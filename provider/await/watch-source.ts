import type { ResourceClient, WatchStream } from "../../sdk/client";
import { GoneError, NotFoundError } from "../../sdk/client";
import { realSleep, type Sleep } from "../../sdk/shared/retry";
import { type ObjectSource, POLL_INTERVAL_MS } from "./source";

/** What the shared watch needs of one kind's client. */
export type WatchableClient<T> = Pick<ResourceClient<T, unknown>, "get" | "list" | "watch">;

interface Versioned {
  metadata: { name: string; resourceVersion?: string };
}

export interface WatchSourceOptions {
  /** How often a waiter looks while no watch is live (before it opens, after it broke, on a server without). */
  pollIntervalMs?: number;
  /** How long after a watch failed to open (or broke) it is opened again. Constant. */
  retryMs?: number;
  /** How long the watch stays open after its last waiter left: the engine starts the next waits soon after. */
  lingerMs?: number;
  /** How often a waiter looks anyway while the watch is live. */
  backstopMs?: number;
  /** Replaces the real timer between attempts to open the watch, for tests. */
  sleep?: Sleep;
}

/**
 * Time between attempts to open a watch that failed. Not on the hot path: waiters poll meanwhile, so
 * this only bounds the load a server without watches sees (one refused GET per kind per second).
 */
export const WATCH_RETRY_MS = 1_000;
export const WATCH_LINGER_MS = 2_000;
/**
 * A waiter looks (GET) this often even while the watch is live: a gateway that buffers streamed answers, or
 * a connection that stalls without breaking, would otherwise hold the wait until its deadline. Constant.
 */
export const WATCH_BACKSTOP_MS = 1_000;

type Message<T> =
  /** A change of the object, at the version of the event (a deletion's version is the deletion's). */
  | { type: "change"; object: T | undefined; version: string | undefined }
  /** Events may have been missed, or the watch stopped: look again. */
  | { type: "look" };

/** One waiter's inbox of the shared watch's messages about its object. */
class Inbox<T> {
  private readonly queue: Message<T>[] = [];
  private wake: (() => void) | undefined;

  push(message: Message<T>): void {
    this.queue.push(message);
    this.wake?.();
  }

  clear(): void {
    this.queue.length = 0;
  }

  /** The next message, or undefined after `timeoutMs` without one. */
  async next(signal: AbortSignal, timeoutMs: number): Promise<Message<T> | undefined> {
    signal.throwIfAborted();
    const queued = this.queue.shift();
    if (queued !== undefined) return queued;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, timeoutMs);
      const aborted = () => {
        done();
        reject(signal.reason);
      };
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", aborted);
        resolve();
      }
      this.wake = done;
      signal.addEventListener("abort", aborted, { once: true });
    });
    this.wake = undefined;
    signal.throwIfAborted();
    return this.queue.shift();
  }
}

/**
 * The waits of one kind in one provider process over one watch of the kind (the engine runs 8 or more
 * resources at once; each would otherwise poll). A waiter looks at its object once (GET), then hears of
 * every change of it from the watch, at once. The watch starts at the version of a one-item list and
 * resumes from the last version it saw (events or bookmarks) when the server ends it; a version the server
 * no longer keeps (410) means a new list and a new look by every waiter, as events may have been missed.
 * While no watch is live (opening, broken, refused by a server without watches) the waiters poll at a
 * constant short interval and the watch is tried again every `retryMs`.
 */
export class KindWatch<T extends Versioned> implements ObjectSource<T> {
  private readonly waiters = new Map<string, Set<Inbox<T>>>();
  private live = false;
  /** Aborts the running watch loop; undefined (or aborted) when none runs. */
  private active: AbortController | undefined;
  private linger: NodeJS.Timeout | undefined;
  private readonly pollIntervalMs: number;
  private readonly retryMs: number;
  private readonly lingerMs: number;
  private readonly backstopMs: number;
  private readonly sleep: Sleep;
  private opened = 0;

  constructor(
    private readonly client: WatchableClient<T>,
    options: WatchSourceOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? POLL_INTERVAL_MS;
    this.retryMs = options.retryMs ?? WATCH_RETRY_MS;
    this.lingerMs = options.lingerMs ?? WATCH_LINGER_MS;
    this.backstopMs = options.backstopMs ?? WATCH_BACKSTOP_MS;
    this.sleep = options.sleep ?? realSleep;
  }

  /** Whether waiters hear of changes from a watch now (otherwise they poll). */
  get isLive(): boolean {
    return this.live;
  }

  /** How many times a watch was opened (or resumed): one per kind, however many wait at once. */
  get watchesOpened(): number {
    return this.opened;
  }

  async *observe(name: string, signal: AbortSignal): AsyncIterable<T | undefined> {
    const inbox = new Inbox<T>();
    this.join(name, inbox);
    try {
      let seen: string | undefined;
      let look = true;
      for (;;) {
        if (look) {
          // What the watch said before this look started is older than what the look sees.
          inbox.clear();
          const object = await this.find(name, signal);
          seen = object?.metadata.resourceVersion;
          look = false;
          yield object;
        }
        const message = await inbox.next(signal, this.live ? this.backstopMs : this.pollIntervalMs);
        if (message === undefined || message.type === "look") look = true;
        else if (isNewer(message.version, seen)) {
          seen = message.version;
          yield message.object;
        }
      }
    } finally {
      this.leave(name, inbox);
    }
  }

  /** Ends the watch now (the provider process is done with it). */
  close(): void {
    clearTimeout(this.linger);
    this.active?.abort();
    this.goPolling();
  }

  private async find(name: string, signal: AbortSignal): Promise<T | undefined> {
    try {
      return await this.client.get(name, { signal });
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  private join(name: string, inbox: Inbox<T>): void {
    clearTimeout(this.linger);
    this.linger = undefined;
    const inboxes = this.waiters.get(name) ?? new Set();
    this.waiters.set(name, inboxes.add(inbox));
    if (this.active === undefined || this.active.signal.aborted) {
      this.active = new AbortController();
      void this.run(this.active.signal);
    }
  }

  private leave(name: string, inbox: Inbox<T>): void {
    const inboxes = this.waiters.get(name);
    inboxes?.delete(inbox);
    if (inboxes?.size === 0) this.waiters.delete(name);
    if (this.waiters.size > 0) return;
    clearTimeout(this.linger);
    this.linger = setTimeout(() => this.close(), this.lingerMs);
    this.linger.unref();
  }

  /** Keeps a watch open while anyone waits (and a little after), resuming and re-listing as needed. */
  private async run(signal: AbortSignal): Promise<void> {
    let version: string | undefined;
    let stream: WatchStream<T> | undefined;
    try {
      while (!signal.aborted) {
        try {
          const fresh = version === undefined;
          if (fresh) version = (await this.client.list({ limit: 1, signal })).metadata.resourceVersion;
          stream = await this.client.watch({ resourceVersion: version, allowWatchBookmarks: true, signal });
          this.opened++;
          // After a new list, events before it may have been missed; a resumed watch misses none.
          this.goLive(fresh || !this.live);
          for await (const event of stream) {
            version = event.object.metadata.resourceVersion ?? version;
            if (event.type !== "BOOKMARK") this.deliver(event.object, event.type === "DELETED");
          }
          // The server ended it (its timeout, a graceful close): resume at once.
        } catch (error) {
          if (signal.aborted) return;
          this.goPolling();
          if (error instanceof GoneError) version = undefined;
          else await this.sleep(this.retryMs, signal);
        } finally {
          stream?.close();
          stream = undefined;
        }
      }
    } catch {
      // Aborted while waiting to open the watch again.
    }
  }

  private deliver(object: T, deleted: boolean): void {
    const inboxes = this.waiters.get(object.metadata.name);
    if (inboxes === undefined) return;
    const message: Message<T> = {
      type: "change",
      object: deleted ? undefined : object,
      version: object.metadata.resourceVersion,
    };
    for (const inbox of inboxes) inbox.push(message);
  }

  private goLive(lookAgain: boolean): void {
    this.live = true;
    if (lookAgain) this.tellAll({ type: "look" });
  }

  /** Waiters switch to polling, starting with a look now. */
  private goPolling(): void {
    if (!this.live) return;
    this.live = false;
    this.tellAll({ type: "look" });
  }

  private tellAll(message: Message<T>): void {
    for (const inboxes of this.waiters.values()) for (const inbox of inboxes) inbox.push(message);
  }
}

/**
 * Whether an event's version is after the version of the object last seen. Versions are numbers on this
 * server; an opaque one (or an unknown one) counts as newer, so a change is never dropped.
 */
function isNewer(version: string | undefined, seen: string | undefined): boolean {
  if (version === undefined || seen === undefined) return true;
  const [a, b] = [Number(version), Number(seen)];
  return Number.isNaN(a) || Number.isNaN(b) ? version !== seen : a > b;
}
