import { KIND_NAMES } from "../../sdk/schema";
import type { ObjectStore, StoredObject } from "../storage";

/**
 * Kubernetes' background cascading deletion: an object whose owners are all gone is deleted, so
 * deleting a Service deletes the ServiceRevisions it owns whoever deletes it (a client or the
 * controller). Runs once at start too, which finishes a cascade a crash interrupted.
 */
export function startGarbageCollector(store: ObjectStore): () => void {
  collectOrphans(store);
  return store.subscribe((event) => {
    if (event.type === "DELETED") collectOrphans(store);
  });
}

function collectOrphans(store: ObjectStore): void {
  const all = KIND_NAMES.flatMap((kind) => store.list(kind).map((object) => ({ kind, object })));
  const live = new Set(all.map(({ object }) => object.metadata.uid));
  for (const { kind, object } of all) {
    if (isOrphan(object, live)) store.delete(kind, object.metadata.name);
  }
}

function isOrphan(object: StoredObject, live: ReadonlySet<string | undefined>): boolean {
  const owners = object.metadata.ownerReferences ?? [];
  return owners.length > 0 && owners.every((owner) => !live.has(owner.uid));
}
