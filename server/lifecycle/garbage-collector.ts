import { hasFinalizers } from "../../admission/finalizers";
import type { ApiObject } from "../../sdk/client/types";
import { KIND_NAMES, type KindName } from "../../sdk/schema";
import type { DeleteTarget, ObjectStore, WatchEvent } from "../storage";
import { Propagation } from "./propagation";
import { terminate } from "./termination";

/**
 * Kubernetes' background cascading deletion: an object whose owners are all gone is deleted, so
 * deleting a Service deletes the ServiceRevisions it owns whoever deletes it (a client or the
 * controller). Owners are matched by uid. Runs once at start too, which finishes a cascade a crash
 * interrupted.
 *
 * The collector keeps an index (owner uid -> dependents), built once at start and kept current from the
 * store's events, so a deletion only looks at the dependents of what was deleted, never at the whole
 * store. The orphans of one commit are deleted in one commit (a delete-collection's chunk of Services
 * takes its revisions in one more), which cascades further the same way.
 */
export function startGarbageCollector(
  store: ObjectStore,
  onError: (error: unknown) => void = (error) => {
    throw error;
  },
): () => void {
  const index = new OwnerIndex();
  const propagation = new Propagation(store, index);
  const objects = KIND_NAMES.flatMap((kind) => store.list(kind).map((object) => ({ kind, object })));
  for (const { kind, object } of objects) index.put(kind, object);
  const unsubscribe = store.subscribeCommits((events) => {
    const suspects = new Map<string, Dependent>();
    // Owners that lost a dependent in this commit (a Foreground deletion may now finish).
    const released = new Set<string>();
    for (const event of events) {
      const before = index.ownersOf(event.kind, event.object.metadata.name);
      for (const dependent of index.apply(event)) suspects.set(dependent.key, dependent);
      const after = index.ownersOf(event.kind, event.object.metadata.name);
      for (const owner of before) if (!after.includes(owner)) released.add(owner);
    }
    collect(store, index.orphans(suspects.values()));
    propagation.afterCommit(events, released);
  });
  // Subscribed first, so what the start-up pass deletes cascades (and leaves the index) like any deletion.
  try {
    collect(store, index.orphans(index.all()));
    propagation.resume(objects);
  } catch (error) {
    onError(error);
  }
  return unsubscribe;
}

/**
 * Deletes the orphans as a client's delete would: those with finalizers (a Proxy's drain) are marked and wait
 * for them, the rest go in one commit.
 */
function collect(store: ObjectStore, orphans: DeleteTarget[]): void {
  const removals: DeleteTarget[] = [];
  for (const orphan of orphans) {
    const object = store.get(orphan.kind, orphan.name);
    if (object !== undefined && object.metadata.uid === orphan.uid && hasFinalizers(object))
      terminate(store, orphan.kind, object, {});
    else removals.push(orphan);
  }
  if (removals.length > 0) store.deleteMany(removals);
}

interface Dependent extends DeleteTarget {
  /** `<kind>/<name>` */
  key: string;
  /** The uids of its owners. */
  owners: readonly string[];
}

/** Who owns whom, by uid; every object with owner references, and the uid of every object stored. */
class OwnerIndex {
  /** uid -> key of every stored object. */
  private readonly live = new Map<string, string>();
  /** key -> the object, for those with owner references. */
  private readonly dependents = new Map<string, Dependent>();
  /** owner uid -> keys of the objects that name it. */
  private readonly byOwner = new Map<string, Set<string>>();

  /**
   * Records what the event changed and returns the objects that may have lost their last owner: the
   * dependents of a deleted object, or an object just written whose owners are absent (a dangling
   * reference, as Kubernetes' collector deletes).
   */
  apply(event: WatchEvent): Dependent[] {
    if (event.type !== "DELETED") {
      this.put(event.kind, event.object);
      const dependent = this.dependents.get(keyOf(event.kind, event.object.metadata.name));
      return dependent ? [dependent] : [];
    }
    const { uid } = event.object.metadata;
    this.drop(event.kind, event.object);
    if (uid === undefined) return [];
    return [...(this.byOwner.get(uid) ?? [])].flatMap((key) => this.dependents.get(key) ?? []);
  }

  put(kind: KindName, object: ApiObject): void {
    const { name, uid, ownerReferences = [] } = object.metadata;
    const key = keyOf(kind, name);
    this.unlink(key);
    if (uid !== undefined) this.live.set(uid, key);
    if (ownerReferences.length === 0) return;
    const owners = [...new Set(ownerReferences.map((owner) => owner.uid))];
    this.dependents.set(key, { key, kind, name, uid, owners });
    for (const owner of owners) {
      let keys = this.byOwner.get(owner);
      if (!keys) {
        keys = new Set();
        this.byOwner.set(owner, keys);
      }
      keys.add(key);
    }
  }

  all(): Iterable<Dependent> {
    return this.dependents.values();
  }

  /** The uids of the owners the object names (none for an object without owner references). */
  ownersOf(kind: KindName, name: string): readonly string[] {
    return this.dependents.get(keyOf(kind, name))?.owners ?? [];
  }

  dependentsOf(uid: string): Dependent[] {
    return [...(this.byOwner.get(uid) ?? [])].flatMap((key) => this.dependents.get(key) ?? []);
  }

  /** The stored object that has `uid`. */
  objectOf(uid: string): { kind: KindName; name: string } | undefined {
    const key = this.live.get(uid);
    if (key === undefined) return undefined;
    const slash = key.indexOf("/");
    return { kind: key.slice(0, slash) as KindName, name: key.slice(slash + 1) };
  }

  /** Those of `candidates` whose owners are all gone, as deletion targets pinned to their uid. */
  orphans(candidates: Iterable<Dependent>): DeleteTarget[] {
    const orphans: DeleteTarget[] = [];
    for (const { kind, name, uid, owners } of candidates) {
      if (owners.every((owner) => !this.live.has(owner))) orphans.push({ kind, name, uid });
    }
    return orphans;
  }

  private drop(kind: KindName, object: ApiObject): void {
    const key = keyOf(kind, object.metadata.name);
    const { uid } = object.metadata;
    this.unlink(key);
    if (uid !== undefined && this.live.get(uid) === key) this.live.delete(uid);
  }

  /** Forgets the owners `key` named; its uid stays live. */
  private unlink(key: string): void {
    const previous = this.dependents.get(key);
    if (!previous) return;
    this.dependents.delete(key);
    for (const owner of previous.owners) {
      const keys = this.byOwner.get(owner);
      keys?.delete(key);
      if (keys?.size === 0) this.byOwner.delete(owner);
    }
  }
}

function keyOf(kind: KindName, name: string): string {
  return `${kind}/${name}`;
}
