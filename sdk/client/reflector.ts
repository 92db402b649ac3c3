// The one list/watch loop, in the shape of client-go's reflector: list, then watch from the list's
// resourceVersion; a watch the server ends is resumed from the last version seen (an event's or a
// bookmark's); a version the server no longer keeps (410 Gone) means a new list; any other failure waits a
// backoff (`sdk/shared/retry.ts`) and resumes. Versions are opaque strings: passed back to the server, never
// ordered. Every cache and wait over the API reads through it (the controller's informer, `KindWatch`).
import { GoneError } from "../errors";
import { backoff, type RetryPolicy, realSleep, type Sleep } from "../shared/retry";
import type { ListOptions, ResourceClient } from "./types";
import type { WatchEvent } from "./watch";

/** What a reflector needs of one kind's client. */
export type ListWatchClient<T> = Pick<ResourceClient<T, unknown>, "list" | "watch">;

interface Versioned {
  metadata: { resourceVersion?: string };
}

/** What the reflector tells its reader, in the order it happened. */
export type ReflectorEvent<T> =
  /**
   * A list: the first, or after 410 Gone, when events may have been missed. `items` (with `list: "all"`) is
   * every object there is now, which replaces what the reader knew.
   */
  | { type: "LISTED"; items?: T[]; resourceVersion: string | undefined }
  /** A watch is open from `resourceVersion`; `resumed`: from the last one's, not from a list. */
  | { type: "WATCHING"; resourceVersion: string | undefined; resumed: boolean }
  /** A change, or a BOOKMARK (only its `metadata.resourceVersion` means anything). */
  | WatchEvent<T>
  /** The list or the watch failed; the reflector tries again after `retryInMs`. */
  | { type: "FAILED"; error: unknown; retryInMs: number };

export interface ReflectorOptions {
  /**
   * `all`: list every page (a cache's view of the kind). `version`: one item, only to learn where the watch
   * starts, for a reader that gets the objects it cares about itself.
   */
  list?: "all" | "version";
  /** Items per list page with `list: "all"`. Default 500, as client-go's. */
  pageSize?: number;
  labelSelector?: string;
  fieldSelector?: string;
  /** Backoff after a failure. Default 800 ms doubling to 30 s, as client-go's reflector. */
  backoff?: Partial<Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">>;
  /**
   * Events read ahead of the reader. Once that many wait, the reflector stops reading the watch: the server
   * holds the rest (or ends a watcher that falls too far behind, which the reflector resumes). Default 100.
   */
  bufferSize?: number;
  /** Replaces the real timer of the backoff, for tests. */
  sleep?: Sleep;
}

const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_BUFFER_SIZE = 100;

export class Reflector<T extends Versioned> {
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;

  constructor(
    private readonly client: ListWatchClient<T>,
    private readonly options: ReflectorOptions = {},
  ) {
    this.sleep = options.sleep ?? realSleep;
    this.policy = {
      maxRetries: Number.POSITIVE_INFINITY,
      baseDelayMs: options.backoff?.baseDelayMs ?? 800,
      maxDelayMs: options.backoff?.maxDelayMs ?? 30_000,
      jitter: "equal",
      maxRetryAfterMs: 0,
      longRetryAfter: "backoff",
      random: Math.random,
      now: Date.now,
    };
  }

  /**
   * Lists and watches until `signal` aborts (the iteration then ends) or the reader stops reading (which ends
   * the watch). Each iteration is a list and watch of its own.
   */
  async *events(signal: AbortSignal): AsyncGenerator<ReflectorEvent<T>> {
    const stop = new AbortController();
    const both = AbortSignal.any([signal, stop.signal]);
    const buffer = new BoundedBuffer<ReflectorEvent<T>>(this.options.bufferSize ?? DEFAULT_BUFFER_SIZE);
    const running = this.run(both, (event) => buffer.put(event, both)).then(
      () => buffer.end(),
      (error: unknown) => buffer.end(error),
    );
    try {
      for (let next = await buffer.take(); next.done !== true; next = await buffer.take()) yield next.value;
    } finally {
      stop.abort();
      await running;
    }
  }

  private async run(signal: AbortSignal, put: (event: ReflectorEvent<T>) => Promise<void>): Promise<void> {
    let version: string | undefined;
    let listed = false;
    let failures = 0;
    while (!signal.aborted) {
      // Whether the watch starts where a list left it (otherwise it resumes where another watch ended).
      const fresh = !listed;
      try {
        if (!listed) {
          const { items, resourceVersion } = await this.list(signal);
          version = resourceVersion;
          listed = true;
          await put({ type: "LISTED", ...(items && { items }), resourceVersion });
        }
        const stream = await this.client.watch({
          resourceVersion: version,
          allowWatchBookmarks: true,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          signal,
        });
        try {
          await put({ type: "WATCHING", resourceVersion: version, resumed: !fresh });
          for await (const event of stream) {
            failures = 0;
            version = event.object.metadata.resourceVersion ?? version;
            await put(event);
          }
        } finally {
          stream.close();
        }
        // The server ended the watch (its timeout, a restart): resume from the version reached.
      } catch (error) {
        if (signal.aborted) return;
        // Gone: list again, at once unless the version was a list's just now (a server that forgets at once).
        if (error instanceof GoneError) listed = false;
        if (error instanceof GoneError && !fresh) continue;
        const retryInMs = backoff(failures++, this.policy);
        await put({ type: "FAILED", error, retryInMs });
        await this.sleep(retryInMs, signal).catch(() => {});
      }
    }
  }

  /** Every page (`list: "all"`), or one item for the version only. */
  private async list(signal: AbortSignal): Promise<{ items?: T[]; resourceVersion: string | undefined }> {
    const selectors: ListOptions = {
      labelSelector: this.options.labelSelector,
      fieldSelector: this.options.fieldSelector,
      signal,
    };
    if (this.options.list === "version") {
      const page = await this.client.list({ ...selectors, limit: 1 });
      return { resourceVersion: page.metadata.resourceVersion };
    }
    const items: T[] = [];
    let token: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.client.list({
        ...selectors,
        limit: this.options.pageSize ?? DEFAULT_PAGE_SIZE,
        continue: token,
      });
      items.push(...page.items);
      resourceVersion = page.metadata.resourceVersion;
      token = page.metadata.continue || undefined;
    } while (token);
    return { items, resourceVersion };
  }
}

/** A queue of at most `size` items between one writer and one reader: `put` waits while it is full. */
class BoundedBuffer<E> {
  private readonly items: E[] = [];
  private ended: { error?: unknown } | undefined;
  /** Whoever waits: the reader for an item, or the writer for room. */
  private wake: (() => void) | undefined;

  constructor(private readonly size: number) {}

  async put(item: E, signal: AbortSignal): Promise<void> {
    while (this.items.length >= this.size) {
      signal.throwIfAborted();
      await this.sleepUntilWoken(signal);
    }
    signal.throwIfAborted();
    this.items.push(item);
    this.wakeUp();
  }

  end(error?: unknown): void {
    this.ended = error === undefined ? {} : { error };
    this.wakeUp();
  }

  async take(): Promise<IteratorResult<E>> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        this.wakeUp();
        return { done: false, value: item };
      }
      if (this.ended) {
        if (this.ended.error !== undefined) throw this.ended.error;
        return { done: true, value: undefined };
      }
      await this.sleepUntilWoken();
    }
  }

  private sleepUntilWoken(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.wake = done;
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
