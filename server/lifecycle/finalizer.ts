import type { KindName } from "../../sdk/schema";
import type { ObjectStore, StoredObject } from "../storage";

/**
 * Kinds whose deletion is two-phase. In production a finalizer drains a proxy before it goes: the
 * first DELETE only sets `deletionTimestamp`, and the object disappears once the finalizer is done.
 */
export const FINALIZED_KINDS: ReadonlySet<KindName> = new Set<KindName>(["Proxy"]);

/**
 * Plays the production finalizer: removes a terminating object `graceMs` after it was marked.
 * Objects found terminating at start (the server stopped mid-grace) get what is left of theirs.
 */
export function startFinalizer(store: ObjectStore, graceMs: number): () => void {
  const timers = new Map<string, NodeJS.Timeout>();

  const schedule = (kind: KindName, object: StoredObject, delayMs: number) => {
    const { name, uid, deletionTimestamp } = object.metadata;
    const key = `${kind}/${name}`;
    if (!FINALIZED_KINDS.has(kind) || !deletionTimestamp || timers.has(key)) return;
    const timer = setTimeout(() => {
      timers.delete(key);
      // The same name may have been deleted and created again meanwhile: only remove what was marked
      // (deleteMany checks the uid and removes in one step, and passes over another incarnation).
      store.deleteMany([{ kind, name, uid }]);
    }, delayMs);
    timer.unref();
    timers.set(key, timer);
  };

  for (const kind of FINALIZED_KINDS) {
    for (const object of store.list(kind)) {
      const markedAt = Date.parse(object.metadata.deletionTimestamp ?? "");
      schedule(kind, object, Math.max(0, markedAt + graceMs - Date.now()));
    }
  }
  const unsubscribe = store.subscribe((event) => {
    if (event.type !== "DELETED") schedule(event.kind, event.object, graceMs);
  });

  return () => {
    unsubscribe();
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
  };
}
