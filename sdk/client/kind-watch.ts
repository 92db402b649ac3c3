import { NotFoundError } from "../errors";
import type { Sleep } from "../shared/retry";
import { type ListWatchClient, Reflector, type ReflectorOptions } from "./reflector";
import type { ResourceClient } from "./types";
import type { ObjectSource } from "./wait";

/** What a kind watch needs of one kind's client. */
export type WatchableClient<T> = ListWatchClient<T> & Pick<ResourceClient<T, unknown>, "get">;

interface Named {
  metadata: { name: string; resourceVersion?: string };
}

export interface KindWatchOptions {
  /** How often a waiter looks while no watch is live (before it opens, after it broke, on a server without). */
  pollIntervalMs?: number;
  /** How long the watch stays open after its last waiter left. */
  lingerMs?: number;
  /** How often a waiter looks anyway while the watch is live. */
  backstopMs?: number;
  /** Backoff between attempts to open a watch that failed. Waiters poll meanwhile. Default 1 s to 30 s. */
  backoff?: ReflectorOptions["backoff"];
  /** Watch only these objects (`metadata.name=<name>` for one). */
  fieldSelector?: string;
  /** Replaces the real timer of the backoff, for tests. */
  sleep?: Sleep;
}

/**
 * How often a waiter looks while no watch is live. Constant, never growing: what is awaited (the
 * controller's verdict, the end of a Proxy's drain) usually takes from milliseconds to about a
 * second, and a wait should end within one interval of it. One small GET per waiting resource per interval.
 */
export const POLL_INTERVAL_MS = 50;
/** The engine starts the next waits soon after the last ones: the watch stays open this long for them. */
export const WATCH_LINGER_MS = 2_000;
/**
 * A waiter looks (GET) this often even while the watch is live: a gateway that buffers streamed answers, or
 * a connection that stalls without breaking, would otherwise hold the wait until its deadline. Constant.
 */
export const WATCH_BACKSTOP_MS = 1_000;
/** Not on the hot path (waiters poll meanwhile): bounds what a server without watches sees. */
const WATCH_BACKOFF = { baseDelayMs: 1_000, maxDelayMs: 30_000 };

/** Where an object stands, as far as equality can tell: a version of it, or its absence. */
type Mark = { version: string | undefined } | "absent";

const markOf = (object: Named | undefined): Mark =>
  object === undefined ? "absent" : { version: object.metadata.resourceVersion };

const sameMark = (a: Mark | undefined, b: Mark | undefined): boolean =>
  a === "absent" || b === "absent" ? a === b : a?.version !== undefined && a.version === b?.version;

type Message<T> =
  /** A change of the object from the watch (undefined: deleted). */
  | { type: "change"; object: T | undefined; mark: Mark }
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
 * The waits of one kind over one watch (a reflector listing only for the version): the provider engine runs 8
 * or more resources at once, each of which would otherwise poll. A waiter looks at its object once (GET), then
 * hears of every change of it from the watch, at once. After a new list (410) every waiter looks again, as
 * events may have been missed; while no watch is live (opening, broken, refused by a server without watches)
 * the waiters poll at a constant short interval.
 *
 * A look and the watch are two views: the watch may bring, after a look, changes older than what the look
 * saw. Versions are only compared for equality, so a waiter whose look saw a version the watch has not
 * brought yet skips the watch's news of its object until that version comes.
 */
export class KindWatch<T extends Named> implements ObjectSource<T> {
  private readonly waiters = new Map<string, Set<Inbox<T>>>();
  /** Where the watch last left each object it brought news of since the last list. */
  private readonly delivered = new Map<string, Mark>();
  private live = false;
  /** Aborts the running watch; undefined (or aborted) when none runs. */
  private active: AbortController | undefined;
  private linger: NodeJS.Timeout | undefined;
  private readonly pollIntervalMs: number;
  private readonly lingerMs: number;
  private readonly backstopMs: number;
  private opened = 0;

  constructor(
    private readonly client: WatchableClient<T>,
    private readonly options: KindWatchOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? POLL_INTERVAL_MS;
    this.lingerMs = options.lingerMs ?? WATCH_LINGER_MS;
    this.backstopMs = options.backstopMs ?? WATCH_BACKSTOP_MS;
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
      let look = true;
      /** What the last look or change yielded. */
      let seen: Mark | undefined;
      /** What the last look saw that the watch has not brought yet: the watch's news until then is older. */
      let ahead: Mark | undefined;
      for (;;) {
        if (look) {
          // What the watch said before this look started is older than what the look sees.
          inbox.clear();
          const before = this.delivered.get(name);
          const object = await this.find(name, signal);
          seen = markOf(object);
          ahead = before === undefined || sameMark(before, seen) ? undefined : seen;
          look = false;
          yield object;
        }
        const message = await inbox.next(signal, this.live ? this.backstopMs : this.pollIntervalMs);
        if (message === undefined || message.type === "look") look = true;
        else if (ahead !== undefined) {
          if (sameMark(message.mark, ahead)) ahead = undefined;
        } else if (!sameMark(message.mark, seen)) {
          seen = message.mark;
          yield message.object;
        }
      }
    } finally {
      this.leave(name, inbox);
    }
  }

  /** Ends the watch now (its user is done with it). */
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

  /** Keeps a watch open while anyone waits (and a little after); the reflector resumes and relists it. */
  private async run(signal: AbortSignal): Promise<void> {
    const reflector = new Reflector(this.client, {
      list: "version",
      backoff: this.options.backoff ?? WATCH_BACKOFF,
      ...(this.options.fieldSelector !== undefined && { fieldSelector: this.options.fieldSelector }),
      ...(this.options.sleep !== undefined && { sleep: this.options.sleep }),
    });
    this.delivered.clear();
    try {
      for await (const event of reflector.events(signal)) {
        if (event.type === "LISTED") {
          // Events before the list may have been missed, and what the watch brought is history.
          this.delivered.clear();
          this.tellAll({ type: "look" });
        } else if (event.type === "WATCHING") {
          this.opened++;
          this.live = true;
        } else if (event.type === "FAILED") {
          this.goPolling();
        } else if (event.type !== "BOOKMARK") {
          this.deliver(event.object, event.type === "DELETED");
        }
      }
    } catch {
      // The reflector broke (a bug): the waiters poll; the next one to join opens a watch again.
    }
    if (this.active?.signal === signal) this.active = undefined;
    this.goPolling();
  }

  private deliver(object: T, deleted: boolean): void {
    const { name } = object.metadata;
    const mark = deleted ? "absent" : markOf(object);
    this.delivered.set(name, mark);
    const inboxes = this.waiters.get(name);
    if (inboxes === undefined) return;
    const message: Message<T> = { type: "change", object: deleted ? undefined : object, mark };
    for (const inbox of inboxes) inbox.push(message);
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
