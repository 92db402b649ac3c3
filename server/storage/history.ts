import type { ApiObject } from "../../sdk/client/types";
import { KIND_NAMES, type KindName } from "../../sdk/schema";
import type { ObjectStore, WatchEvent } from "./types";

/** How many store events a watch can resume from (the watch cache of a Kubernetes API server). */
export const DEFAULT_WATCH_HISTORY = 10_000;

/**
 * How long an event is kept: kube-apiserver's watch cache keeps at least this long
 * (`eventFreshDuration`, 75 s) and a resource's history on it does not outlive the cache, so a client
 * resuming from an old version must expect 410 and list again; a history kept for ever hides that.
 */
export const DEFAULT_WATCH_RETENTION_MS = 75_000;

/** One store event as watches replay it. Objects are as stored (secrets intact) and never mutated. */
export interface HistoryEvent {
  type: WatchEvent["type"];
  kind: KindName;
  object: ApiObject;
  resourceVersion: number;
  /** The labels of the object before this event; `existed` false when there was none (a create). */
  previous: { existed: boolean; labels?: Readonly<Record<string, string>> };
}

export type HistoryListener = (event: HistoryEvent) => void;

/**
 * A bounded in-memory history of the store's events, in resourceVersion order: the last `capacity` events,
 * none older than `retentionMs`.
 * A watch starting at resourceVersion `v` replays the events after `v` when `v` is not older than
 * `oldest()`, the version of the last event that was let go (or the store's version when the history
 * started): every event after it is kept. Live events reach subscribers as they are committed.
 *
 * Each event carries the labels the object had before it, so a label-selector watch can tell an object
 * entering its selection (ADDED) from one leaving it (DELETED), as Kubernetes' watch cache does; the
 * history keeps the current labels of every object for that (names and labels only, never specs).
 */
export class EventHistory {
  private readonly ring: (HistoryEvent | undefined)[];
  /** When each event in the ring was recorded (ms), at the same index. */
  private readonly recordedAt: Float64Array;
  private head = 0;
  private size = 0;
  private floor: number;
  private latest: number;
  private readonly labels = new Map<string, Readonly<Record<string, string>> | undefined>();
  private readonly listeners = new Set<HistoryListener>();
  private readonly unsubscribe: () => void;
  private readonly unsubscribeResets: () => void;

  constructor(
    store: ObjectStore,
    readonly capacity = DEFAULT_WATCH_HISTORY,
    private readonly onListenerError: (error: unknown) => void = () => {},
    readonly retentionMs = DEFAULT_WATCH_RETENTION_MS,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError(`the watch history keeps at least one event, not ${capacity}`);
    this.ring = new Array(capacity);
    this.recordedAt = new Float64Array(capacity);
    for (const kind of KIND_NAMES) {
      for (const object of store.list(kind)) this.labels.set(keyOf(kind, object), object.metadata.labels);
    }
    // Taken with the objects, in the same tick: every later event is recorded.
    this.floor = Number(store.resourceVersion());
    this.latest = this.floor;
    this.unsubscribe = store.subscribeCommits((events) => {
      for (const event of events) this.record(event);
    });
    this.unsubscribeResets = store.subscribeResets((version) => this.rollBack(store, version));
  }

  /** The version after which every event is kept: a watch may start at it or later. */
  oldest(): number {
    this.letGoExpired();
    return this.floor;
  }

  /** The version of the latest event recorded. */
  newest(): number {
    return this.latest;
  }

  /** The events of `kind` after `version` in order, or undefined when some of them are no longer kept. */
  since(kind: KindName, version: number): HistoryEvent[] | undefined {
    this.letGoExpired();
    if (version < this.floor) return undefined;
    const events: HistoryEvent[] = [];
    for (let i = 0; i < this.size; i++) {
      const event = this.ring[(this.head + i) % this.capacity] as HistoryEvent;
      if (event.resourceVersion > version && event.kind === kind) events.push(event);
    }
    return events;
  }

  /** Whether an object of `kind` changed after `version`; undefined when that is no longer known. */
  changedSince(kind: KindName, version: number): boolean | undefined {
    const events = this.since(kind, version);
    return events === undefined ? undefined : events.length > 0;
  }

  subscribe(listener: HistoryListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const subscription: HistoryListener = (event) => listener(event);
    this.listeners.add(subscription);
    return () => this.listeners.delete(subscription);
  }

  close(): void {
    this.unsubscribe();
    this.unsubscribeResets();
    this.listeners.clear();
  }

  /**
   * The store undid its writes after `version` (their commit found no space): their events go (the newest
   * are last), and the labels are the stored objects' again.
   */
  private rollBack(store: ObjectStore, version: number): void {
    while (this.size > 0) {
      const index = (this.head + this.size - 1) % this.capacity;
      if ((this.ring[index] as HistoryEvent).resourceVersion <= version) break;
      this.ring[index] = undefined;
      this.size--;
    }
    this.latest = Math.min(this.latest, version);
    this.floor = Math.min(this.floor, version);
    this.labels.clear();
    for (const kind of KIND_NAMES) {
      for (const object of store.pageView(kind, {}).items)
        this.labels.set(keyOf(kind, object), object.metadata.labels);
    }
  }

  private record(event: WatchEvent): void {
    const key = keyOf(event.kind, event.object);
    const previous = { existed: this.labels.has(key), labels: this.labels.get(key) };
    if (event.type === "DELETED") this.labels.delete(key);
    else this.labels.set(key, event.object.metadata.labels);
    const recorded: HistoryEvent = {
      type: event.type,
      kind: event.kind,
      object: event.object,
      resourceVersion: Number(event.object.metadata.resourceVersion),
      previous,
    };
    this.letGoExpired();
    if (this.size === this.capacity) this.letGoOldest();
    const index = (this.head + this.size) % this.capacity;
    this.ring[index] = recorded;
    this.recordedAt[index] = Date.now();
    this.size++;
    this.latest = Math.max(this.latest, recorded.resourceVersion);
    for (const listener of [...this.listeners]) {
      if (!this.listeners.has(listener)) continue;
      try {
        listener(recorded);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** Lets go of the events recorded more than `retentionMs` ago (the oldest come first). */
  private letGoExpired(): void {
    const limit = Date.now() - this.retentionMs;
    while (this.size > 0 && (this.recordedAt[this.head] as number) < limit) this.letGoOldest();
  }

  private letGoOldest(): void {
    const evicted = this.ring[this.head] as HistoryEvent;
    this.ring[this.head] = undefined;
    this.floor = evicted.resourceVersion;
    this.head = (this.head + 1) % this.capacity;
    this.size--;
  }
}

function keyOf(kind: KindName, object: ApiObject): string {
  return `${kind}/${object.metadata.name}`;
}
