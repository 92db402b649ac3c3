import type { ObjectMeta as ApiObjectMeta } from "../../sdk/client/types";
import type { KindName } from "../../sdk/schema";

export type { OwnerReference } from "../../sdk/client/types";

/**
 * Kubernetes object metadata, as the client types declare it. The server sets `uid`, `resourceVersion`,
 * `generation` and `creationTimestamp` on create; they are optional because objects handed to `create` lack them.
 */
export type ObjectMeta = ApiObjectMeta;

/** An object as stored: secret values are intact (redaction happens only in responses and logs). */
export interface StoredObject {
  apiVersion: string;
  kind: KindName;
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  kind: KindName;
  object: StoredObject;
}

export type WatchListener = (event: WatchEvent) => void;

/**
 * The one store behind the routes and the controller. Every method returns copies: mutating a result
 * never changes stored state. Every write gets a `resourceVersion` greater than any before it, in the
 * whole store, and is durable (when the store is) before the method returns.
 */
export interface ObjectStore {
  get(kind: KindName, name: string): StoredObject | undefined;
  /** Ordered by name. */
  list(kind: KindName): StoredObject[];
  /** Sets uid, resourceVersion, generation (1) and creationTimestamp. Throws ApiError AlreadyExists. */
  create(kind: KindName, obj: StoredObject): StoredObject;
  /**
   * Replaces spec and the client-owned metadata (labels, annotations, ownerReferences) and may set
   * `deletionTimestamp` (never clear it). `obj.metadata.resourceVersion` must equal the stored one
   * (ApiError Conflict otherwise; NotFound if absent). `generation` goes up by one when the spec
   * changes. Status is left as stored: it is written only through `updateStatus`.
   */
  update(kind: KindName, obj: StoredObject): StoredObject;
  /** Replaces status only; never touches spec or generation. Throws ApiError NotFound. */
  updateStatus(kind: KindName, name: string, status: Record<string, unknown>): StoredObject;
  /** Removes the object at once and returns it (with the deletion's resourceVersion). */
  delete(kind: KindName, name: string): StoredObject | undefined;
  /** The resourceVersion of the latest write (what a list reports). */
  resourceVersion(): string;
  /** Listeners run synchronously after each committed write, in subscription order. */
  subscribe(listener: WatchListener): () => void;
  close(): void;
}
