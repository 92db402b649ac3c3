import { hasFinalizers } from "../../admission/finalizers";
import type { ApiObject } from "../../sdk/client/types";
import { KIND_NAMES, type KindName } from "../../sdk/schema";
import type { ObjectStore } from "../storage";

/**
 * Removes an object once it is marked for deletion and its last finalizer is gone, as Kubernetes' registry
 * does for an update that leaves a terminating object without finalizers. What holds an object is someone
 * else's finalizer: the garbage collector's (`foregroundDeletion`, `orphan`), the controller's Proxy drain,
 * or a user's. Marks found at start (a stop between the last finalizer's removal and the removal) go too.
 */
export function startFinalizer(
  store: ObjectStore,
  onError: (error: unknown) => void = (error) => {
    throw error;
  },
): () => void {
  const consider = (kind: KindName, object: ApiObject) => {
    if (!object.metadata.deletionTimestamp || hasFinalizers(object)) return;
    // The same name may have been deleted and created again meanwhile: only remove what was marked
    // (deleteMany checks the uid and removes in one step, and passes over another incarnation).
    const { name, uid } = object.metadata;
    store.deleteMany([{ kind, name, uid }]);
  };
  const unsubscribe = store.subscribe((event) => {
    if (event.type !== "DELETED") consider(event.kind, event.object);
  });
  try {
    for (const kind of KIND_NAMES) for (const object of store.list(kind)) consider(kind, object);
  } catch (error) {
    onError(error);
  }
  return unsubscribe;
}
