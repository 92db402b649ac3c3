import { KINDS, type KindName } from "../../sdk/schema";
import { notFound, type Status, successStatus } from "../errors";
import { FINALIZED_KINDS } from "../lifecycle";
import { type ObjectStore, type StoredObject, timestamp } from "../storage";

export type DeleteOutcome =
  | { code: 202; object: StoredObject; status?: undefined }
  | { code: 200; object: StoredObject; status: Status };

/**
 * Deletes one object as Kubernetes does. A finalized kind (Proxy) is only marked with a
 * `deletionTimestamp` (202, the object in the body; again 202 while it terminates) and the lifecycle's
 * finalizer removes it; any other kind goes at once (200 and a Success Status). Owned objects follow
 * through the garbage collector.
 */
export function deleteObject(store: ObjectStore, kind: KindName, name: string): DeleteOutcome {
  const existing = store.get(kind, name);
  if (!existing) throw notFound(kind, name);
  if (FINALIZED_KINDS.has(kind)) {
    if (existing.metadata.deletionTimestamp) return { code: 202, object: existing };
    const marked = store.update(kind, {
      ...existing,
      metadata: { ...existing.metadata, deletionTimestamp: timestamp() },
    });
    return { code: 202, object: marked };
  }
  const deleted = store.delete(kind, name) ?? existing;
  const { group, plural } = KINDS[kind];
  return {
    code: 200,
    object: deleted,
    status: successStatus({ name, group, kind: plural, uid: deleted.metadata.uid }),
  };
}
