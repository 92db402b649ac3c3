// A cache of one kind with handlers, in the shape of client-go's informer, over the one list/watch loop
// (`sdk/client/reflector.ts`): a list replaces the cache (its differences handed out as events, so no change
// is missed after a 410), each event changes it, and every failure is waited out by the reflector.
// Versions are compared only for equality.
import {
  type ListWatchClient,
  Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
} from "../sdk/client/reflector";
import type { Sleep } from "../sdk/shared/retry";

/** What the informer reads of an object. */
export interface Cached {
  metadata: { name: string; uid?: string; resourceVersion?: string };
}

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
  backoff?: ReflectorOptions["backoff"];
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

export class Informer<T extends Cached> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly stopping = new AbortController();
  /** The version the cache stands at: the last list's, event's or bookmark's; undefined until listed. */
  private version: string | undefined;
  private hasSynced = false;
  private syncWaiters: (() => void)[] = [];
  /**
   * Incarnations (`name/uid`) known to be deleted: taken out by `assumeDeleted` (until the watch brings the
   * deletion), or by the watch or a relist (so that the answer to an earlier write of one, arriving after
   * its deletion, does not bring it back).
   */
  private readonly deleted = new Recent();
  /** Versions the list or the watch brought: an assumed write at one of them is no news (the cache has it or later). */
  private readonly brought = new Recent();
  private versionWaiters: { reached: (version: string | undefined) => boolean; resolve: () => void }[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: ListWatchClient<T>,
    private readonly options: InformerOptions = {},
    private readonly transform?: Transform<T>,
  ) {}

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
   * version is then no news; an answer whose version the watch already brought (the cache has it, or a later
   * one) changes nothing.
   */
  assume(object: T): void {
    const { name, uid, resourceVersion } = object.metadata;
    if (uid !== undefined && this.deleted.has(`${name}/${uid}`)) return;
    if (resourceVersion !== undefined && this.brought.has(resourceVersion)) return;
    this.put(object);
  }

  /**
   * An object this process just deleted (at once: no finalizer held it): out of the cache now. Until the
   * watch brings its deletion, events of that incarnation (uid) are older news and do not bring it back.
   */
  assumeDeleted(name: string): void {
    this.remove(name);
  }

  /**
   * Resolves once `reached` holds of the version the cache stands at (asked after each list, event and
   * bookmark). Only the caller can tell whether a version is at or after another: this server's versions are
   * opaque to the informer.
   */
  reachedWhen(reached: (version: string | undefined) => boolean): Promise<void> {
    if (reached(this.version)) return Promise.resolve();
    return new Promise((resolve) => this.versionWaiters.push({ reached, resolve }));
  }

  /** Ends the watch; the cache keeps what it holds. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error("the informer is stopping"));
    await this.running;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { onError, ...options } = this.options;
    const reflector = new Reflector(this.client, { list: "all", ...options });
    for await (const event of reflector.events(signal)) this.apply(event);
  }

  private apply(event: ReflectorEvent<T>): void {
    switch (event.type) {
      case "LISTED":
        this.replace(event.items ?? []);
        this.reach(event.resourceVersion);
        if (!this.hasSynced) {
          this.hasSynced = true;
          for (const resolve of this.syncWaiters.splice(0)) resolve();
        }
        return;
      case "FAILED":
        this.options.onError?.(event.error);
        return;
      case "WATCHING":
        return;
    }
    const { name, uid, resourceVersion } = event.object.metadata;
    if (resourceVersion !== undefined) this.brought.add(resourceVersion);
    if (event.type === "DELETED") this.remove(name);
    else if (event.type !== "BOOKMARK" && (uid === undefined || !this.deleted.has(`${name}/${uid}`))) {
      this.put(event.object);
    }
    this.reach(resourceVersion ?? this.version);
  }

  /** Makes the cache equal to a list: what is new is added, what is gone deleted. */
  private replace(items: T[]): void {
    const listed = new Map(items.map((item) => [item.metadata.name, item]));
    for (const name of this.cache.keys()) if (!listed.has(name)) this.remove(name);
    for (const object of listed.values()) {
      if (object.metadata.resourceVersion !== undefined) this.brought.add(object.metadata.resourceVersion);
      this.put(object);
    }
  }

  private reach(version: string | undefined): void {
    this.version = version;
    const waiting = this.versionWaiters;
    this.versionWaiters = waiting.filter((waiter) => !waiter.reached(version));
    for (const waiter of waiting) if (waiter.reached(version)) waiter.resolve();
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
    if (previous.metadata.uid !== undefined) this.deleted.add(`${name}/${previous.metadata.uid}`);
    this.cache.delete(name);
    for (const handler of this.handlers) handler.delete?.(previous);
  }
}

/**
 * Keys remembered for `RECENT_MS`: long enough for the answer of any write made before a deletion or an event
 * (a request has a deadline of seconds) and for a lagging watch's older events, short enough that a
 * controller busy all day keeps only the last minute's.
 */
class Recent {
  /** In the order they were added, which is the order they expire in. */
  private readonly added = new Map<string, number>();

  add(key: string): void {
    const now = Date.now();
    this.added.delete(key);
    this.added.set(key, now);
    for (const [oldest, at] of this.added) {
      if (now - at < RECENT_MS) break;
      this.added.delete(oldest);
    }
  }

  has(key: string): boolean {
    const at = this.added.get(key);
    return at !== undefined && Date.now() - at < RECENT_MS;
  }
}

const RECENT_MS = 60_000;
