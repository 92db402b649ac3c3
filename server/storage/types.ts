import type { ApiObject, ObjectMeta as ApiObjectMeta } from "../../sdk/client/types";
import type { KindName } from "../../sdk/schema";
import type { Preconditions } from "./preconditions";

export type { OwnerReference } from "../../sdk/client/types";

/**
 * Kubernetes object metadata, as the client types declare it. The server sets `uid`, `resourceVersion`,
 * `generation` and `creationTimestamp` on create; they are optional because objects handed to `create` lack them.
 */
export type ObjectMeta = ApiObjectMeta;

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  kind: KindName;
  object: ApiObject;
}

export type WatchListener = (event: WatchEvent) => void;

/** Called once per commit with all of its events (several when `deleteMany` removes several objects). */
export type CommitListener = (events: readonly WatchEvent[]) => void;

/**
 * Called when the store's contents moved without events: the writes after `version` were never made durable
 * (their commit found no space) and are undone, or writes refused for lack of space are taken again. What
 * was derived from events after `version` must go, and what a refused write was to do may be done now.
 */
export type ResetListener = (version: number) => void;

/** What the store hears from its journal about the writes it made since the last commit (one batch). */
export interface JournalObserver {
  /** They are committed. */
  committed(): void;
  /** They are lost (rolled back for lack of space): memory must go back to where the batch began. */
  lost(): void;
  /** Writes refused for lack of space are taken again. */
  writable(): void;
}

/** An object `deleteMany` removes: by name, and only while it is the incarnation `uid` names (when given). */
export interface DeleteTarget {
  kind: KindName;
  name: string;
  uid?: string;
}

/** Which objects a page holds: those after `after` (by name) that `where` accepts, at most `limit`. */
export interface PageQuery {
  after?: string;
  limit?: number;
  where?: (object: ApiObject) => boolean;
}

export interface Page<T> {
  items: T[];
  more: boolean;
  remaining?: number;
}

/**
 * The one store behind the routes and the controller. Objects are stored with their secret values intact
 * (redaction happens only in responses and logs). Every method returns copies: mutating a result
 * never changes stored state. Every write gets a `resourceVersion` greater than any before it, in the
 * whole store, is visible at once, and is durable (when the store is) once `durable()` resolves.
 */
export interface ObjectStore {
  get(kind: KindName, name: string): ApiObject | undefined;
  /** Ordered by name. */
  list(kind: KindName): ApiObject[];
  /**
   * One page in name order: the objects after `after` that `where` accepts, at most `limit`; only those are
   * copied. `more` says whether another accepted object follows; `remaining` counts the objects after the
   * page when there is no `where` (as Kubernetes reports remainingItemCount only for unfiltered lists).
   */
  page(kind: KindName, query: PageQuery): Page<ApiObject>;
  /**
   * `page` without the copies: the stored objects themselves, for a read that only serializes them (a
   * list's answer). A stored object is never changed once stored (a write stores a new one), so what is
   * returned stays as it was; it must never be mutated.
   */
  pageView(kind: KindName, query: PageQuery): Page<Readonly<ApiObject>>;
  /** Sets uid, resourceVersion, generation (1) and creationTimestamp. Throws ApiError AlreadyExists. */
  create(kind: KindName, obj: ApiObject): ApiObject;
  /**
   * Replaces spec, the client-owned metadata (labels, annotations, ownerReferences, finalizers) and managedFields (which
   * the API computes, server-side apply's record of who owns which field), and may set
   * `deletionTimestamp` (never clear it). `obj.metadata.resourceVersion` must equal the stored one
   * (ApiError Conflict otherwise; NotFound if absent). `generation` goes up by one when the spec
   * changes. Status is left as stored: it is written only through `replaceStatus`.
   */
  update(kind: KindName, obj: ApiObject): ApiObject;
  /**
   * A write to the status subresource (`/status`): stores `obj.status` (removes the status when it has none)
   * and `obj.metadata.managedFields`, and keeps everything else as stored (spec, the rest of the metadata,
   * generation). `obj.metadata.resourceVersion` must equal the stored one (ApiError Conflict otherwise;
   * NotFound if absent).
   */
  replaceStatus(kind: KindName, obj: ApiObject): ApiObject;
  /**
   * Removes the object at once and returns it (with the deletion's resourceVersion); undefined when it is
   * absent. With preconditions, the check and the removal are one step: ApiError Conflict ("Precondition
   * failed") when the stored object has another uid or resourceVersion, and nothing is removed.
   */
  delete(kind: KindName, name: string, preconditions?: Preconditions): ApiObject | undefined;
  /**
   * Removes several objects in one durable commit (all or none), each deletion with its own
   * resourceVersion, and returns them in the order given; undefined for a target that is absent, another
   * incarnation than its `uid`, or named twice. Listeners hear of them once the commit is made.
   */
  deleteMany(targets: readonly DeleteTarget[]): (ApiObject | undefined)[];
  /** The resourceVersion of the latest write (what a list reports). */
  resourceVersion(): string;
  /**
   * Resolves once every write made so far is durable (at once for the in-memory store). Writes that arrive
   * together share one commit; nothing may be acknowledged before this resolves (`http/durability.ts`
   * waits for it before every response). Rejects when the commit failed.
   */
  durable(): Promise<void>;
  /**
   * Listeners run synchronously after each committed write, in subscription order, before the outermost
   * write returns. A write made by a listener is delivered after every listener has seen the current one,
   * so every listener sees events in resourceVersion order.
   */
  subscribe(listener: WatchListener): () => void;
  /** Like `subscribe`, once per commit with all of its events. */
  subscribeCommits(listener: CommitListener): () => void;
  /** Told when writes are undone, or taken again, for lack of space (`ResetListener`). */
  subscribeResets(listener: ResetListener): () => void;
  /** Why writes are refused for lack of space (a 500 whose message names the data directory), while they are. */
  spaceExhausted(): Error | undefined;
  close(): void;
}

/** A durable record of the store's writes. The store keeps every object in memory and writes through. */
export interface Journal {
  load(): { objects: { kind: KindName; object: ApiObject }[]; resourceVersion: number };
  /**
   * Persists the object (insert or replace) and the store's resourceVersion in one commit. `scrub`: the
   * write takes secret values out of the store, so no copy of the old ones may stay on disk.
   */
  put(kind: KindName, object: ApiObject, resourceVersion: number, scrub: boolean): void;
  /** Removes the objects and persists the store's resourceVersion in one commit (all or none). */
  remove(objects: readonly { kind: KindName; name: string }[], resourceVersion: number, scrub: boolean): void;
  /**
   * Resolves once every write made so far is on disk. A journal that commits each write before `put` or
   * `remove` returns needs none; one that groups commits resolves it at the commit.
   */
  durable?(): Promise<void>;
  /** How the store hears of its writes' fate, for a journal that can lose a batch it accepted. */
  observe?(observer: JournalObserver): void;
  spaceExhausted?(): Error | undefined;
  /** Commits what is pending and closes. */
  close(): void;
}
