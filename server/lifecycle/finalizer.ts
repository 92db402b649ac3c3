import { KIND_NAMES, type KindName } from "../../sdk/schema";
import { hasFinalizers } from "../admission/finalizers";
import type { ObjectStore, StoredObject } from "../storage";

/**
 * Kinds whose deletion is two-phase. In production a finalizer drains a proxy before it goes: the
 * first DELETE only sets `deletionTimestamp`, and the object disappears once the finalizer is done.
 */
export const FINALIZED_KINDS: ReadonlySet<KindName> = new Set<KindName>(["Proxy"]);

/**
 * The server's grace as the whole seconds a mark records (`metadata.deletionGracePeriodSeconds` is
 * Kubernetes' int64 seconds): rounded up, so a client that reads it never expects the Proxy gone too soon.
 */
export function graceSeconds(graceMs: number): number {
  return Math.ceil(graceMs / 1000);
}

/**
 * Plays the production finalizer: removes a terminating Proxy once its grace period is over (the
 * `deletionGracePeriodSeconds` its mark records: the deletion's, or the server's `graceMs`), counted from
 * when it was marked, and removes any terminating object once its finalizers are all gone (a Proxy not
 * before its grace is over), as Kubernetes removes an object whose `deletionTimestamp` is set and whose
 * finalizers list is empty. A later delete that shortens the grace moves the end forward (never past now);
 * objects found terminating at start (the server stopped mid-grace) get what is left of theirs.
 */
export function startFinalizer(store: ObjectStore, graceMs: number): () => void {
  const timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  /** Proxies whose grace is over but which wait for finalizers. */
  const graceOver = new Set<string>();
  /**
   * When this process saw each mark (by uid): to the millisecond, where `deletionTimestamp` has whole
   * seconds. A mark found at start counts from its `deletionTimestamp`.
   */
  const markedAt = new Map<string, number>();
  const serverSeconds = graceSeconds(graceMs);
  const graceOf = (object: StoredObject) => {
    const seconds = object.metadata.deletionGracePeriodSeconds;
    // The server's own grace is recorded rounded up to whole seconds: it drains for the exact one.
    return seconds === undefined || seconds === serverSeconds ? graceMs : seconds * 1000;
  };
  /** What is left of the object's grace, from when it was marked. */
  const delayOf = (object: StoredObject) => {
    const { uid } = object.metadata;
    let since = uid === undefined ? undefined : markedAt.get(uid);
    if (since === undefined) {
      since = Date.now();
      if (uid !== undefined) markedAt.set(uid, since);
    }
    return Math.max(0, since + graceOf(object) - Date.now());
  };

  const remove = (kind: KindName, object: StoredObject) => {
    // The same name may have been deleted and created again meanwhile: only remove what was marked
    // (deleteMany checks the uid and removes in one step, and passes over another incarnation).
    const { name, uid } = object.metadata;
    store.deleteMany([{ kind, name, uid }]);
  };

  const forget = (kind: KindName, name: string, uid?: string) => {
    const key = `${kind}/${name}`;
    if (uid !== undefined) markedAt.delete(uid);
    clearTimeout(timers.get(key)?.timer);
    timers.delete(key);
    graceOver.delete(key);
  };

  /** A timer for the end of the grace; an earlier end (a shorter grace asked for later) replaces it. */
  const schedule = (kind: KindName, object: StoredObject, delayMs: number) => {
    const { name, uid } = object.metadata;
    const key = `${kind}/${name}`;
    const due = Date.now() + delayMs;
    const pending = timers.get(key);
    if (pending !== undefined && pending.due <= due) return;
    clearTimeout(pending?.timer);
    const timer = setTimeout(() => {
      timers.delete(key);
      const current = store.get(kind, name);
      if (current === undefined || current.metadata.uid !== uid) return;
      graceOver.add(key);
      if (!hasFinalizers(current)) remove(kind, current);
    }, delayMs);
    timer.unref();
    timers.set(key, { timer, due });
  };

  const consider = (kind: KindName, object: StoredObject, delayMs: number) => {
    if (!object.metadata.deletionTimestamp) return;
    const key = `${kind}/${object.metadata.name}`;
    if (FINALIZED_KINDS.has(kind) && !graceOver.has(key)) {
      if (delayMs > 0) {
        schedule(kind, object, delayMs);
        return;
      }
      forget(kind, object.metadata.name);
      graceOver.add(key);
    }
    if (!hasFinalizers(object)) remove(kind, object);
  };

  const unsubscribe = store.subscribe((event) => {
    if (event.type === "DELETED") forget(event.kind, event.object.metadata.name, event.object.metadata.uid);
    else if (event.object.metadata.deletionTimestamp)
      consider(event.kind, event.object, delayOf(event.object));
  });
  for (const kind of KIND_NAMES) {
    for (const object of store.list(kind)) {
      const { uid, deletionTimestamp } = object.metadata;
      if (!deletionTimestamp) continue;
      if (uid !== undefined) markedAt.set(uid, Date.parse(deletionTimestamp));
      consider(kind, object, delayOf(object));
    }
  }

  return () => {
    unsubscribe();
    for (const { timer } of timers.values()) clearTimeout(timer);
    timers.clear();
    graceOver.clear();
    markedAt.clear();
  };
}
