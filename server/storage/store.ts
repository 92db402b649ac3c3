import { randomUUID } from "node:crypto";
import type { ApiObject } from "../../sdk/client/types";
import type { KindName } from "../../sdk/schema";
import { timestamp } from "../../sdk/shared/time";
import { SortedBucket } from "./bucket";
import { copyJson } from "./copy";
import { createdObject, removedObject, statusUpdatedObject, updatedObject } from "./next-object";
import { checkPreconditions, type Preconditions } from "./preconditions";
import { dropsSecrets } from "./secrets";
import type {
  CommitListener,
  DeleteTarget,
  Journal,
  ObjectStore,
  Page,
  PageQuery,
  ResetListener,
  WatchEvent,
  WatchListener,
} from "./types";

export interface StoreOptions {
  /** Without a journal the store lives in memory only (tests). */
  journal?: Journal;
  /** A throwing listener must not undo a committed write nor starve the listeners after it. */
  onListenerError?: (error: unknown) => void;
}

/**
 * The store's semantics (versions, generations, optimistic concurrency, events), shared by the
 * in-memory and the durable store: the only difference is the journal.
 */
export class Store implements ObjectStore {
  private readonly objects = new Map<KindName, SortedBucket>();
  private readonly listeners = new Set<CommitListener>();
  /** Commits whose events are not yet delivered; a write made by a listener waits its turn here. */
  private readonly undelivered: WatchEvent[][] = [];
  private delivering = false;
  private readonly journal: Journal | undefined;
  private readonly onListenerError: (error: unknown) => void;
  private lastVersion = 0;
  private readonly resets = new Set<ResetListener>();
  /** What the writes since the journal's last commit replaced, to put back if their commit is lost. */
  private undo: { kind: KindName; name: string; previous: ApiObject | undefined }[] = [];
  /** The version before those writes. */
  private undoFrom = 0;

  constructor(options: StoreOptions = {}) {
    this.journal = options.journal;
    this.onListenerError = options.onListenerError ?? (() => {});
    if (this.journal) {
      const { objects, resourceVersion } = this.journal.load();
      for (const { kind, object } of objects) this.bucket(kind).set(object.metadata.name, object);
      this.lastVersion = resourceVersion;
      this.journal.observe?.({
        committed: () => {
          this.undo = [];
        },
        lost: () => this.rollBack(),
        writable: () => this.reset(),
      });
    }
  }

  get(kind: KindName, name: string): ApiObject | undefined {
    const found = this.bucket(kind).get(name);
    return found && copyJson(found);
  }

  list(kind: KindName): ApiObject[] {
    return Array.from(this.bucket(kind).values(), (object) => copyJson(object));
  }

  page(kind: KindName, query: PageQuery): Page<ApiObject> {
    const page = this.pageView(kind, query);
    return { ...page, items: page.items.map((object) => copyJson(object)) };
  }

  pageView(kind: KindName, { after, limit, where }: PageQuery): Page<Readonly<ApiObject>> {
    const bucket = this.bucket(kind);
    const items: ApiObject[] = [];
    let more = false;
    for (const object of bucket.values(after)) {
      if (where !== undefined && !where(object)) continue;
      if (limit !== undefined && items.length === limit) {
        more = true;
        break;
      }
      items.push(object);
    }
    const last = items.at(-1)?.metadata.name ?? after;
    return { items, more, ...(more && where === undefined && { remaining: bucket.countAfter(last) }) };
  }

  create(kind: KindName, obj: ApiObject): ApiObject {
    const version = this.lastVersion + 1;
    const identity = { uid: randomUUID(), creationTimestamp: timestamp() };
    const stored = this.bucket(kind).get(obj.metadata.name);
    const created = createdObject(kind, stored, copyJson(obj), identity, String(version));
    return this.commit("ADDED", kind, created, version);
  }

  update(kind: KindName, obj: ApiObject): ApiObject {
    const version = this.lastVersion + 1;
    const stored = this.bucket(kind).get(obj.metadata.name);
    const updated = updatedObject(kind, stored, copyJson(obj), String(version));
    return this.commit("MODIFIED", kind, updated, version, stored);
  }

  replaceStatus(kind: KindName, obj: ApiObject): ApiObject {
    const version = this.lastVersion + 1;
    const stored = this.bucket(kind).get(obj.metadata.name);
    const updated = statusUpdatedObject(kind, stored, copyJson(obj), String(version));
    return this.commit("MODIFIED", kind, updated, version, stored);
  }

  delete(kind: KindName, name: string, preconditions?: Preconditions): ApiObject | undefined {
    const existing = this.bucket(kind).get(name);
    if (!existing) return undefined;
    checkPreconditions(kind, existing, preconditions);
    return this.remove([{ kind, existing }])[0];
  }

  deleteMany(targets: readonly DeleteTarget[]): (ApiObject | undefined)[] {
    const chosen = new Set<ApiObject>();
    const found = targets.map(({ kind, name, uid }) => {
      const existing = this.bucket(kind).get(name);
      if (!existing || chosen.has(existing) || (uid !== undefined && existing.metadata.uid !== uid))
        return undefined;
      chosen.add(existing);
      return { kind, existing };
    });
    const removed = this.remove(found.filter((entry) => entry !== undefined));
    let next = 0;
    return found.map((entry) => (entry === undefined ? undefined : removed[next++]));
  }

  resourceVersion(): string {
    return String(this.lastVersion);
  }

  durable(): Promise<void> {
    return this.journal?.durable?.() ?? Promise.resolve();
  }

  subscribe(listener: WatchListener): () => void {
    // The events are this subscription's own copies already (subscribeCommits).
    return this.subscribeCommits((events) => {
      for (const event of events) {
        try {
          listener(event);
        } catch (error) {
          this.onListenerError(error);
        }
      }
    });
  }

  subscribeCommits(listener: CommitListener): () => void {
    // A wrapper per subscription, so subscribing the same function twice gets two subscriptions.
    const subscription: CommitListener = (events) => {
      try {
        listener(events.map((event) => ({ ...event, object: copyJson(event.object) })));
      } catch (error) {
        this.onListenerError(error);
      }
    };
    this.listeners.add(subscription);
    return () => this.listeners.delete(subscription);
  }

  subscribeResets(listener: ResetListener): () => void {
    const subscription: ResetListener = (version) => listener(version);
    this.resets.add(subscription);
    return () => this.resets.delete(subscription);
  }

  spaceExhausted(): Error | undefined {
    return this.journal?.spaceExhausted?.();
  }

  close(): void {
    this.listeners.clear();
    this.resets.clear();
    this.journal?.close();
  }

  private bucket(kind: KindName): SortedBucket {
    let bucket = this.objects.get(kind);
    if (!bucket) {
      bucket = new SortedBucket();
      this.objects.set(kind, bucket);
    }
    return bucket;
  }

  /** Journal first: if the durable write fails, memory and listeners never see the change. */
  private commit(
    type: WatchEvent["type"],
    kind: KindName,
    object: ApiObject,
    version: number,
    replaced?: ApiObject,
  ): ApiObject {
    if (this.journal) {
      const scrub = replaced !== undefined && dropsSecrets(kind, replaced, object);
      this.journal.put(kind, object, version, scrub);
      this.remember(kind, object.metadata.name);
    }
    this.lastVersion = version;
    this.bucket(kind).set(object.metadata.name, object);
    this.emit([{ type, kind, object }]);
    return copyJson(object);
  }

  /**
   * Removes the objects in one commit, each deletion with its own resourceVersion; the events follow the
   * commit, so listeners never see a deletion the journal has not made durable.
   */
  private remove(entries: readonly { kind: KindName; existing: ApiObject }[]): ApiObject[] {
    if (entries.length === 0) return [];
    const last = this.lastVersion + entries.length;
    if (this.journal) {
      const scrub = entries.some(({ kind, existing }) => dropsSecrets(kind, existing));
      const objects = entries.map(({ kind, existing }) => ({ kind, name: existing.metadata.name }));
      this.journal.remove(objects, last, scrub);
      for (const { kind, name } of objects) this.remember(kind, name);
    }
    const events = entries.map(({ kind, existing }, index): WatchEvent => {
      this.bucket(kind).delete(existing.metadata.name);
      const object = removedObject(existing, String(this.lastVersion + index + 1));
      return { type: "DELETED", kind, object };
    });
    this.lastVersion = last;
    this.emit(events);
    return events.map((event) => copyJson(event.object));
  }

  /** Notes what a write is about to replace in memory, until the journal commits it. */
  private remember(kind: KindName, name: string): void {
    if (this.undo.length === 0) this.undoFrom = this.lastVersion;
    this.undo.push({ kind, name, previous: this.bucket(kind).get(name) });
  }

  /**
   * The journal lost the writes since its last commit: memory goes back to where they began (last change
   * first), their events not yet delivered are dropped, and the reset listeners drop what they derived.
   */
  private rollBack(): void {
    for (const { kind, name, previous } of this.undo.reverse()) {
      if (previous === undefined) this.bucket(kind).delete(name);
      else this.bucket(kind).set(name, previous);
    }
    this.undo = [];
    this.lastVersion = this.undoFrom;
    this.undelivered.length = 0;
    this.reset();
  }

  private reset(): void {
    for (const listener of [...this.resets]) {
      try {
        listener(this.lastVersion);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /**
   * Delivers a commit's events to every listener, in subscription order. Commits are delivered one after
   * another in the order they were made: a write a listener makes is delivered once every listener has
   * seen the commit that caused it, so all listeners see events in resourceVersion order.
   */
  private emit(events: WatchEvent[]): void {
    this.undelivered.push(events);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let batch = this.undelivered.shift(); batch; batch = this.undelivered.shift()) {
        for (const listener of [...this.listeners]) {
          if (this.listeners.has(listener)) listener(batch);
        }
      }
    } finally {
      this.delivering = false;
    }
  }
}
