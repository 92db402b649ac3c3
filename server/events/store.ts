// The local server's Kubernetes Events, as kube-apiserver keeps them: one stored shape (core v1's, which
// events.k8s.io/v1 is a view of, convert.ts), namespaced, each expiring `ttlMs` after its last write
// (kube-apiserver's `--event-ttl`, default 1 h, a lease renewed by every write), and a resourceVersion of
// their own that lists and watches resume from. Kept in memory: Events are history for people, not state,
// and a restart forgets them (kube's outlive a restart by their TTL; docs/operating.md says so). A cap on
// the count drops the oldest first, so no client can fill the server's memory with them.
import { randomUUID } from "node:crypto";
import { timestamp } from "../../sdk/shared/time";

/** A core v1 Event. Fields beyond these are kept as written. */
export interface StoredEvent {
  apiVersion: "v1";
  kind: "Event";
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  involvedObject: Record<string, unknown>;
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  [key: string]: unknown;
}

export type EventChange = { type: "ADDED" | "MODIFIED" | "DELETED"; object: StoredEvent };

export interface EventStoreOptions {
  /** How long an Event lives after its last write. Default 1 h (kube-apiserver's `--event-ttl`). */
  ttlMs?: number;
  /** The most Events kept; the oldest go first. Default 10,000. */
  maxEvents?: number;
}

export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;
const DEFAULT_MAX_EVENTS = 10_000;

export class EventStore {
  private readonly events = new Map<string, { event: StoredEvent; expiresAt: number }>();
  private readonly listeners = new Set<(change: EventChange) => void>();
  private readonly closers = new Set<() => void>();
  private version = 0;
  private readonly ttlMs: number;
  private readonly maxEvents: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: EventStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_EVENT_TTL_MS;
    this.maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
    this.sweeper = setInterval(() => this.expire(), Math.min(this.ttlMs, 10_000));
    this.sweeper.unref();
  }

  /** The resourceVersion of the last write: a list's, and where a watch from it starts. */
  get resourceVersion(): string {
    return String(this.version);
  }

  get(namespace: string, name: string): StoredEvent | undefined {
    this.expire();
    return this.events.get(`${namespace}/${name}`)?.event;
  }

  /** Every Event of `namespace` (every namespace when undefined), oldest write first. */
  list(namespace?: string): StoredEvent[] {
    this.expire();
    return [...this.events.values()]
      .map(({ event }) => event)
      .filter((event) => namespace === undefined || event.metadata.namespace === namespace);
  }

  /** Stores a new Event; false when the name is taken. */
  create(
    event: Omit<StoredEvent, "metadata"> & { metadata: Partial<StoredEvent["metadata"]> },
  ): StoredEvent | undefined {
    const { namespace = "default", name = "" } = event.metadata;
    if (this.get(namespace, name) !== undefined) return undefined;
    const stored = this.stamp({
      ...event,
      metadata: { ...event.metadata, name, namespace, uid: randomUUID(), creationTimestamp: timestamp() },
    } as StoredEvent);
    this.put(stored, "ADDED");
    while (this.events.size > this.maxEvents) {
      const oldest = this.events.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
    return stored;
  }

  /** Replaces a stored Event (its uid and creation time kept); undefined when there is none. */
  replace(event: StoredEvent): StoredEvent | undefined {
    const before = this.get(event.metadata.namespace, event.metadata.name);
    if (before === undefined) return undefined;
    const stored = this.stamp({
      ...event,
      metadata: {
        ...event.metadata,
        uid: before.metadata.uid,
        creationTimestamp: before.metadata.creationTimestamp,
      },
    });
    this.put(stored, "MODIFIED");
    return stored;
  }

  delete(namespace: string, name: string): StoredEvent | undefined {
    const before = this.get(namespace, name);
    if (before !== undefined) this.remove(`${namespace}/${name}`);
    return before;
  }

  /** Every change from now on, until the returned function is called. */
  watch(listener: (change: EventChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `end` when the store closes (the server stops): open watches end then. */
  onClose(end: () => void): () => void {
    this.closers.add(end);
    return () => this.closers.delete(end);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.listeners.clear();
    for (const end of this.closers) end();
    this.closers.clear();
  }

  private stamp(event: StoredEvent): StoredEvent {
    this.version += 1;
    return { ...event, metadata: { ...event.metadata, resourceVersion: String(this.version) } };
  }

  private put(event: StoredEvent, type: EventChange["type"]): void {
    const key = `${event.metadata.namespace}/${event.metadata.name}`;
    // Deleted first, so that the map's order stays the order of last writes (the oldest first to go).
    this.events.delete(key);
    this.events.set(key, { event, expiresAt: Date.now() + this.ttlMs });
    for (const listener of this.listeners) listener({ type, object: event });
  }

  private remove(key: string): void {
    const entry = this.events.get(key);
    if (entry === undefined) return;
    this.events.delete(key);
    this.version += 1;
    const object = {
      ...entry.event,
      metadata: { ...entry.event.metadata, resourceVersion: String(this.version) },
    };
    for (const listener of this.listeners) listener({ type: "DELETED", object });
  }

  private expire(): void {
    const now = Date.now();
    for (const [key, { expiresAt }] of this.events) {
      if (expiresAt > now) break; // in order of last write: the rest expire later
      this.remove(key);
    }
  }
}
