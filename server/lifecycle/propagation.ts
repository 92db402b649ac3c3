import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "../../admission/finalizers";
import type { ApiObject } from "../../sdk/client/types";
import type { KindName } from "../../sdk/schema";
import type { ObjectStore, WatchEvent } from "../storage";
import { terminate } from "./termination";

/** What propagation needs of the garbage collector's owner index. */
export interface OwnerGraph {
  /** The objects that name `uid` among their owners. */
  dependentsOf(uid: string): readonly { kind: KindName; name: string; uid?: string }[];
  /** The stored object that has `uid`, if any. */
  objectOf(uid: string): { kind: KindName; name: string } | undefined;
}

/**
 * The Foreground and Orphan propagation policies, as Kubernetes' garbage collector carries them out
 * through the finalizers a deletion sets:
 *
 * - `orphan`: every dependent loses its owner reference to the object, then the finalizer goes (and the
 *   object with it, once nothing else holds it).
 * - `foregroundDeletion`: every dependent that has no other owner still alive is deleted (a dependent that
 *   has one only loses its reference to this owner); the finalizer goes once no dependent is left, so the
 *   object goes after them. A dependent written while its owner waits (a revision minted meanwhile) goes too.
 *   Dependents are deleted with their own kind's default (Background for what they own in turn).
 */
export class Propagation {
  /** Owners waiting for their dependents (foregroundDeletion), by uid. */
  private readonly waiting = new Set<string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly graph: OwnerGraph,
  ) {}

  /** Picks up what a stop interrupted: owners marked for Orphan or Foreground deletion. */
  resume(objects: Iterable<{ kind: KindName; object: ApiObject }>): void {
    for (const { kind, object } of objects) this.consider({ type: "MODIFIED", kind, object });
  }

  /**
   * After the owner index took a commit's events: `released` holds the owners that lost a dependent
   * (deleted, or no longer naming them); those in foreground deletion may now be free to go.
   */
  afterCommit(events: readonly WatchEvent[], released: Iterable<string>): void {
    for (const event of events) this.consider(event);
    for (const owner of released) this.finishForeground(owner);
  }

  private consider(event: WatchEvent): void {
    const { object, kind } = event;
    const { uid, deletionTimestamp, finalizers = [], ownerReferences = [] } = object.metadata;
    if (uid === undefined) return;
    if (event.type === "DELETED") {
      this.waiting.delete(uid);
      return;
    }
    const terminating = deletionTimestamp !== undefined;
    if (terminating && finalizers.includes(ORPHAN_FINALIZER)) this.orphanDependents(kind, object);
    if (terminating && finalizers.includes(FOREGROUND_FINALIZER)) {
      this.waiting.add(uid);
      this.deleteDependents(uid);
      return;
    }
    this.waiting.delete(uid);
    if (ownerReferences.some((owner) => this.waiting.has(owner.uid))) this.collect(kind, object);
  }

  private orphanDependents(kind: KindName, owner: ApiObject): void {
    const uid = owner.metadata.uid as string;
    for (const dependent of this.graph.dependentsOf(uid)) this.dropOwner(dependent, uid);
    this.dropFinalizer(kind, owner.metadata.name, uid, ORPHAN_FINALIZER);
  }

  private deleteDependents(uid: string): void {
    const dependents = this.graph.dependentsOf(uid);
    if (dependents.length === 0) {
      this.finishForeground(uid);
      return;
    }
    for (const dependent of dependents) {
      const current = this.store.get(dependent.kind, dependent.name);
      if (current === undefined || current.metadata.uid !== dependent.uid) continue;
      this.collect(dependent.kind, current);
    }
  }

  /** A dependent of an owner in foreground deletion: deleted, or released when another owner lives on. */
  private collect(kind: KindName, dependent: ApiObject): void {
    const owners = dependent.metadata.ownerReferences ?? [];
    const solid = owners.some((owner) => !this.waiting.has(owner.uid) && this.graph.objectOf(owner.uid));
    if (!solid) {
      terminate(this.store, kind, dependent, {});
      return;
    }
    for (const owner of owners) {
      if (this.waiting.has(owner.uid))
        this.dropOwner({ kind, name: dependent.metadata.name, uid: dependent.metadata.uid }, owner.uid);
    }
  }

  /** The owner in foreground deletion goes once no dependent names it. */
  private finishForeground(uid: string): void {
    if (!this.waiting.has(uid) || this.graph.dependentsOf(uid).length > 0) return;
    const found = this.graph.objectOf(uid);
    if (found) this.dropFinalizer(found.kind, found.name, uid, FOREGROUND_FINALIZER);
  }

  private dropOwner(dependent: { kind: KindName; name: string; uid?: string }, ownerUid: string): void {
    const current = this.store.get(dependent.kind, dependent.name);
    if (current === undefined || current.metadata.uid !== dependent.uid) return;
    const references = current.metadata.ownerReferences ?? [];
    const kept = references.filter((reference) => reference.uid !== ownerUid);
    if (kept.length === references.length) return;
    const { ownerReferences: _dropped, ...metadata } = current.metadata;
    this.store.update(dependent.kind, {
      ...current,
      metadata: { ...metadata, ...(kept.length > 0 && { ownerReferences: kept }) },
    });
  }

  private dropFinalizer(kind: KindName, name: string, uid: string, finalizer: string): void {
    const current = this.store.get(kind, name);
    if (current === undefined || current.metadata.uid !== uid) return;
    const finalizers = current.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    const kept = finalizers.filter((entry) => entry !== finalizer);
    const { finalizers: _dropped, ...metadata } = current.metadata;
    this.store.update(kind, {
      ...current,
      metadata: { ...metadata, ...(kept.length > 0 && { finalizers: kept }) },
    });
  }
}
