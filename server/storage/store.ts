import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { KINDS, type KindName } from "../../sdk/schema";
import { alreadyExists, badRequest, conflict, notFound } from "../errors";
import { withoutUndefined } from "../records";
import type { ObjectMeta, ObjectStore, StoredObject, WatchEvent, WatchListener } from "./types";

/** A durable record of the store's writes. The store keeps every object in memory and writes through. */
export interface Journal {
  load(): { objects: { kind: KindName; object: StoredObject }[]; resourceVersion: number };
  /** Persists the object (insert or replace) and the store's resourceVersion in one commit. */
  put(kind: KindName, object: StoredObject, resourceVersion: number): void;
  remove(kind: KindName, name: string, resourceVersion: number): void;
  close(): void;
}

export interface StoreOptions {
  /** Without a journal the store lives in memory only (tests). */
  journal?: Journal;
  /** A throwing listener must not undo a committed write nor starve the listeners after it. */
  onListenerError?: (error: unknown) => void;
}

/** Kubernetes timestamps are RFC 3339 with second precision. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The store's semantics (versions, generations, optimistic concurrency, events), shared by the
 * in-memory and the durable store: the only difference is the journal.
 */
export class Store implements ObjectStore {
  private readonly objects = new Map<KindName, Map<string, StoredObject>>();
  private readonly listeners = new Set<WatchListener>();
  private readonly journal: Journal | undefined;
  private readonly onListenerError: (error: unknown) => void;
  private lastVersion = 0;

  constructor(options: StoreOptions = {}) {
    this.journal = options.journal;
    this.onListenerError = options.onListenerError ?? (() => {});
    if (this.journal) {
      const { objects, resourceVersion } = this.journal.load();
      for (const { kind, object } of objects) this.bucket(kind).set(object.metadata.name, object);
      this.lastVersion = resourceVersion;
    }
  }

  get(kind: KindName, name: string): StoredObject | undefined {
    const found = this.bucket(kind).get(name);
    return found && structuredClone(found);
  }

  list(kind: KindName): StoredObject[] {
    return [...this.bucket(kind).values()]
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
      .map((object) => structuredClone(object));
  }

  create(kind: KindName, obj: StoredObject): StoredObject {
    const { name } = obj.metadata;
    if (!name) throw badRequest("metadata.name is required to create an object");
    if (this.bucket(kind).has(name)) throw alreadyExists(kind, name);
    const version = this.lastVersion + 1;
    const created: StoredObject = {
      apiVersion: KINDS[kind].apiVersion,
      kind,
      metadata: orderedMetadata({
        ...structuredClone(obj.metadata),
        uid: randomUUID(),
        resourceVersion: String(version),
        generation: 1,
        creationTimestamp: timestamp(),
        deletionTimestamp: undefined,
      }),
      spec: structuredClone(obj.spec),
      ...(obj.status && { status: structuredClone(obj.status) }),
    };
    return this.commit("ADDED", kind, created, version);
  }

  update(kind: KindName, obj: StoredObject): StoredObject {
    const existing = this.require(kind, obj.metadata.name);
    if (obj.metadata.resourceVersion !== existing.metadata.resourceVersion)
      throw conflict(kind, existing.metadata.name);
    const version = this.lastVersion + 1;
    const specChanged = !isDeepStrictEqual(existing.spec, obj.spec);
    const { uid, creationTimestamp, generation = 1, deletionTimestamp } = existing.metadata;
    const updated: StoredObject = {
      apiVersion: existing.apiVersion,
      kind,
      metadata: orderedMetadata({
        ...structuredClone(obj.metadata),
        name: existing.metadata.name,
        uid,
        creationTimestamp,
        resourceVersion: String(version),
        generation: specChanged ? generation + 1 : generation,
        deletionTimestamp: deletionTimestamp ?? obj.metadata.deletionTimestamp,
      }),
      spec: structuredClone(obj.spec),
      ...(existing.status && { status: existing.status }),
    };
    return this.commit("MODIFIED", kind, updated, version);
  }

  updateStatus(kind: KindName, name: string, status: Record<string, unknown>): StoredObject {
    const existing = this.require(kind, name);
    const version = this.lastVersion + 1;
    const updated: StoredObject = {
      ...existing,
      metadata: { ...existing.metadata, resourceVersion: String(version) },
      status: structuredClone(status),
    };
    return this.commit("MODIFIED", kind, updated, version);
  }

  delete(kind: KindName, name: string): StoredObject | undefined {
    const existing = this.bucket(kind).get(name);
    if (!existing) return undefined;
    const version = this.lastVersion + 1;
    this.journal?.remove(kind, name, version);
    this.lastVersion = version;
    this.bucket(kind).delete(name);
    const deleted = { ...existing, metadata: { ...existing.metadata, resourceVersion: String(version) } };
    this.emit({ type: "DELETED", kind, object: deleted });
    return structuredClone(deleted);
  }

  resourceVersion(): string {
    return String(this.lastVersion);
  }

  subscribe(listener: WatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    this.journal?.close();
  }

  private bucket(kind: KindName): Map<string, StoredObject> {
    let bucket = this.objects.get(kind);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(kind, bucket);
    }
    return bucket;
  }

  private require(kind: KindName, name: string): StoredObject {
    const existing = this.bucket(kind).get(name);
    if (!existing) throw notFound(kind, name);
    return existing;
  }

  /** Journal first: if the durable write fails, memory and listeners never see the change. */
  private commit(
    type: WatchEvent["type"],
    kind: KindName,
    object: StoredObject,
    version: number,
  ): StoredObject {
    this.journal?.put(kind, object, version);
    this.lastVersion = version;
    this.bucket(kind).set(object.metadata.name, object);
    this.emit({ type, kind, object });
    return structuredClone(object);
  }

  private emit(event: WatchEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener({ ...event, object: structuredClone(event.object) });
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

/** Only the fields of ObjectMeta, always in the same order (as Kubernetes serializes them). */
function orderedMetadata(fields: ObjectMeta): ObjectMeta {
  const { name, generateName, uid, resourceVersion, generation, creationTimestamp, deletionTimestamp } =
    fields;
  const { labels, annotations, ownerReferences } = fields;
  return withoutUndefined({
    name,
    generateName,
    uid,
    resourceVersion,
    generation,
    creationTimestamp,
    deletionTimestamp,
    labels,
    annotations,
    ownerReferences,
  });
}
