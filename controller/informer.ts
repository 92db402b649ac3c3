// A list+watch cache of one kind, in the shape of client-go's reflector and informer: list, then watch from
// the list's resourceVersion; a watch the server ends is resumed from the last version seen (an event or a
// bookmark); a version the server no longer keeps (410) means a new list, whose differences from the cache
// are handed out as events, so no change is missed. Any other failure waits a backoff and tries again.
import { GoneError, type ResourceClient } from "../sdk/client";
import { backoff, type RetryPolicy, realSleep, type Sleep } from "../sdk/shared/retry";

/** What the informer reads of an object. */
export interface Cached {
  metadata: { name: string; uid?: string; resourceVersion?: string };
}

export type ListWatchClient<T> = Pick<ResourceClient<T, unknown>, "list" | "watch">;

/** Called in the order the changes happened; the objects are the cache's (copy before changing them). */
export interface InformerHandlers<T> {
  add?(object: T): void;
  update?(previous: T, object: T): void;
  delete?(object: T): void;
}

export interface InformerOptions {
  /** Items per list page. Default 500, as client-go's. */
  pageSize?: number;
  /** Backoff after a failed list or watch. Default 800 ms doubling to 30 s, as client-go's reflector. */
  backoff?: Partial<Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">>;
  /** Given every failure that is waited out; the informer goes on. */
  onError?(error: unknown): void;
  /** Replaces the real timer of the backoff, for tests. */
  sleep?: Sleep;
}

/**
 * What the cache keeps of each object, as client-go's `SetTransform`: a reader that needs less than the whole
 * object keeps less. It must keep `metadata.name` and `metadata.resourceVersion`.
 */
export type Transform<T> = (object: T) => T;

const DEFAULT_PAGE_SIZE = 500;

export class Informer<T extends Cached> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly stopping = new AbortController();
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly pageSize: number;
  /** The version the cache stands at: the last list's, event's or bookmark's; undefined until listed. */
  private version: string | undefined;
  private hasSynced = false;
  private syncWaiters: (() => void)[] = [];
  /**
   * Incarnations known to be deleted, by name: taken out by `assumeDeleted` (until the watch brings the
   * deletion), or by the watch or a relist (so that the answer to an earlier write of one, arriving after
   * its deletion, does not bring it back). See `Tombstones`.
   */
  private readonly deleted = new Tombstones();
  private versionWaiters: { version: string; resolve: () => void }[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: ListWatchClient<T>,
    private readonly options: InformerOptions = {},
    private readonly transform?: Transform<T>,
  ) {
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
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

  /** Handlers added before `start` see every object of the first list as added. */
  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }

  /** Whether anyone listens: a cache nobody reads is not worth a list and a watch. */
  get hasHandlers(): boolean {
    return this.handlers.length > 0;
  }

  start(): void {
    this.running ??= this.run(this.stopping.signal);
  }

  /** Resolves once the first list is in the cache (and its objects were handed to the handlers). */
  synced(): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(name: string): T | undefined {
    return this.cache.get(name);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /** The resourceVersion the cache has reached; undefined before the first list. */
  get resourceVersion(): string | undefined {
    return this.version;
  }

  /**
   * An object this process just wrote, as the server answered: in the cache at once, so the next read does
   * not act on the state before its own write (client-go's mutation cache). The watch's event of the same
   * version is then no news; an older one never replaces it.
   */
  assume(object: T): void {
    const { name, uid } = object.metadata;
    if (uid !== undefined && this.deleted.has(name, uid)) return;
    const cached = this.cache.get(name);
    if (cached && isOlder(object.metadata.resourceVersion, cached.metadata.resourceVersion)) return;
    this.put(object);
  }

  /**
   * An object this process just deleted (at once: no finalizer held it): out of the cache now. Until the
   * watch brings its deletion, events of that incarnation (uid) are older news and do not bring it back.
   */
  assumeDeleted(name: string): void {
    this.remove(name);
  }

  /** Resolves once the cache has reached `version` (its events and bookmarks up to it are in). */
  reached(version: string): Promise<void> {
    if (!isOlder(this.version, version)) return Promise.resolve();
    return new Promise((resolve) => this.versionWaiters.push({ version, resolve }));
  }

  /** Ends the watch; the cache keeps what it holds. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error("the informer is stopping"));
    await this.running;
  }

  private async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (this.version === undefined) await this.relist(signal);
        const stream = await this.client.watch({
          resourceVersion: this.version,
          allowWatchBookmarks: true,
          signal,
        });
        try {
          for await (const event of stream) {
            failures = 0;
            const { name, uid, resourceVersion } = event.object.metadata;
            if (event.type === "DELETED") {
              this.remove(name);
            } else if (event.type !== "BOOKMARK" && (uid === undefined || !this.deleted.has(name, uid))) {
              this.put(event.object);
            }
            this.reach(resourceVersion ?? this.version);
          }
        } finally {
          stream.close();
        }
        // The server ended the watch (its timeout, a restart): resume from the version reached.
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof GoneError) {
          this.version = undefined;
          continue;
        }
        this.options.onError?.(error);
        try {
          await this.sleep(backoff(failures++, this.policy), signal);
        } catch {
          return;
        }
      }
    }
  }

  /** Lists every page, then makes the cache equal to it: what is new is added, what is gone deleted. */
  private async relist(signal: AbortSignal): Promise<void> {
    const listed = new Map<string, T>();
    let token: string | undefined;
    let version: string | undefined;
    do {
      const page = await this.client.list({ limit: this.pageSize, continue: token, signal });
      for (const item of page.items) listed.set(item.metadata.name, item);
      version = page.metadata.resourceVersion;
      token = page.metadata.continue || undefined;
    } while (token);
    for (const name of this.cache.keys()) if (!listed.has(name)) this.remove(name);
    for (const object of listed.values()) this.put(object);
    this.reach(version);
    if (!this.hasSynced) {
      this.hasSynced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private reach(version: string | undefined): void {
    this.version = version;
    const waiting = this.versionWaiters;
    this.versionWaiters = waiting.filter((waiter) => isOlder(version, waiter.version));
    for (const waiter of waiting) if (!isOlder(version, waiter.version)) waiter.resolve();
  }

  private put(received: T): void {
    const object = this.transform ? this.transform(received) : received;
    const name = object.metadata.name;
    const previous = this.cache.get(name);
    // A relist finds most objects as they were, and an assumed write comes back from the watch: no news.
    if (previous && previous.metadata.resourceVersion === object.metadata.resourceVersion) return;
    this.cache.set(name, object);
    for (const handler of this.handlers) {
      if (previous) handler.update?.(previous, object);
      else handler.add?.(object);
    }
  }

  private remove(name: string): void {
    const previous = this.cache.get(name);
    if (!previous) return;
    if (previous.metadata.uid !== undefined) this.deleted.add(name, previous.metadata.uid);
    this.cache.delete(name);
    for (const handler of this.handlers) handler.delete?.(previous);
  }
}

/**
 * Deleted incarnations (name and uid), each for `TOMBSTONE_MS`: long enough for the answer of any write made
 * before the deletion (a request has a deadline of seconds) and for a lagging watch's older events, short
 * enough that a controller deleting objects all day keeps only the last minute's.
 */
class Tombstones {
  /** In the order they were added, which is the order they expire in. */
  private readonly entries = new Map<string, { uid: string; at: number }>();

  add(name: string, uid: string): void {
    const now = Date.now();
    this.entries.delete(name);
    this.entries.set(name, { uid, at: now });
    for (const [oldest, { at }] of this.entries) {
      if (now - at < TOMBSTONE_MS) break;
      this.entries.delete(oldest);
    }
  }

  has(name: string, uid: string): boolean {
    const entry = this.entries.get(name);
    return entry !== undefined && entry.uid === uid && Date.now() - entry.at < TOMBSTONE_MS;
  }
}

const TOMBSTONE_MS = 60_000;

/**
 * Whether version `a` comes before `b` (an unknown one before any). Versions are etcd revisions on
 * kube-apiserver and counters on the local server: numbers, though Kubernetes calls them opaque.
 */
function isOlder(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined) return b !== undefined;
  if (b === undefined) return false;
  return Number(a) < Number(b);
}
