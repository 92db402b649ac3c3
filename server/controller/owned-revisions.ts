import type { ObjectStore, StoredObject, WatchEvent } from "../storage";
import { controllingService, isControlledBy } from "./revision";

/**
 * Which ServiceRevisions each Service controls, by the Service's uid, kept current from the store's events,
 * so a sync that prunes history looks only at its own Service's revisions instead of scanning (and copying)
 * every revision in the store: a sync stays O(own revisions) however many Services there are.
 */
export class OwnedRevisions {
  /** controller uid -> names of the revisions it controls */
  private readonly byOwner = new Map<string, Set<string>>();
  /** revision name -> its controller's uid */
  private readonly ownerOf = new Map<string, string>();
  private readonly unsubscribe: () => void;

  constructor(private readonly store: ObjectStore) {
    // Subscribed before the start-up scan: a write in between is seen (applying it twice is harmless).
    this.unsubscribe = store.subscribe((event) => this.apply(event));
    for (const revision of store.list("ServiceRevision")) this.put(revision);
  }

  /** The revisions `service` (this incarnation: its uid) controls, as stored now. */
  of(service: StoredObject): StoredObject[] {
    const names = this.byOwner.get(service.metadata.uid ?? "") ?? new Set<string>();
    return [...names]
      .map((name) => this.store.get("ServiceRevision", name))
      .filter(
        (revision): revision is StoredObject => revision !== undefined && isControlledBy(revision, service),
      );
  }

  close(): void {
    this.unsubscribe();
  }

  private apply(event: WatchEvent): void {
    if (event.kind !== "ServiceRevision") return;
    this.drop(event.object.metadata.name);
    if (event.type !== "DELETED") this.put(event.object);
  }

  private put(revision: StoredObject): void {
    const name = revision.metadata.name;
    const owner = controllingService(revision)?.uid;
    if (owner === undefined) return;
    this.ownerOf.set(name, owner);
    let names = this.byOwner.get(owner);
    if (names === undefined) {
      names = new Set();
      this.byOwner.set(owner, names);
    }
    names.add(name);
  }

  private drop(name: string): void {
    const owner = this.ownerOf.get(name);
    if (owner === undefined) return;
    this.ownerOf.delete(name);
    const names = this.byOwner.get(owner);
    names?.delete(name);
    if (names?.size === 0) this.byOwner.delete(owner);
  }
}
