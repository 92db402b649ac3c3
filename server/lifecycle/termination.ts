import { isDeepStrictEqual } from "node:util";
import type { KindName } from "../../sdk/schema";
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "../admission/finalizers";
import { type ObjectStore, type StoredObject, shorterGrace, timestamp } from "../storage";
import { FINALIZED_KINDS } from "./finalizer";

/** Kubernetes' `DeleteOptions.propagationPolicy`: what happens to the objects the deleted one owns. */
export type PropagationPolicy = "Foreground" | "Background" | "Orphan";
export const PROPAGATION_POLICIES: readonly PropagationPolicy[] = ["Foreground", "Background", "Orphan"];

export interface TerminationOptions {
  /** Unset: Background, unless the object already carries a propagation finalizer (kept, as in Kubernetes). */
  propagationPolicy?: PropagationPolicy;
  /** A Proxy's grace period (default: the server's); 0 removes it at once (no drain). Other kinds go at once. */
  gracePeriodSeconds?: number;
  /**
   * Not from the request: the server's grace for a Proxy, in whole seconds, recorded as the mark's
   * `deletionGracePeriodSeconds` when the first delete gives no `gracePeriodSeconds` (as Kubernetes records
   * a pod's default grace), so clients can tell when it terminates.
   */
  defaultGracePeriodSeconds?: number;
}

/** What deleting an object does: remove it now, or mark it and let the lifecycle remove it later. */
export type Termination = { remove: true } | { remove: false; marked: StoredObject; changed: boolean };

/**
 * How a deletion goes, as Kubernetes' registry decides it: the propagation policy becomes a finalizer
 * (`foregroundDeletion`: the object goes after its dependents; `orphan`: once they no longer name it), and
 * an object that has finalizers, or is a Proxy within its grace period, is only marked with a
 * `deletionTimestamp`; anything else is removed at once. A Proxy's grace is `gracePeriodSeconds` when
 * given, else the server's (`defaultGracePeriodSeconds`), kept as `deletionGracePeriodSeconds`: it
 * terminates that long after its `deletionTimestamp` (0 removes it at once when no finalizer holds it). Deleting an object already marked changes only its propagation finalizers and may
 * shorten its grace period, never lengthen it.
 */
export function terminationOf(
  kind: KindName,
  existing: StoredObject,
  options: TerminationOptions,
): Termination {
  const before = existing.metadata.finalizers ?? [];
  const finalizers = propagationFinalizers(before, options.propagationPolicy);
  const finalized = FINALIZED_KINDS.has(kind);
  const graceful = finalized && options.gracePeriodSeconds !== 0;
  if (finalizers.length === 0 && !graceful) return { remove: true };
  const { finalizers: _previous, ...metadata } = existing.metadata;
  const stored = existing.metadata.deletionGracePeriodSeconds;
  const requested = finalized ? options.gracePeriodSeconds : undefined;
  // The first delete sets the grace (the request's, else the server's); a later one may only shorten it.
  const first = existing.metadata.deletionTimestamp === undefined;
  const serverGrace = first && finalized ? options.defaultGracePeriodSeconds : undefined;
  const grace = shorterGrace(stored, requested ?? serverGrace);
  const marked: StoredObject = {
    ...existing,
    metadata: {
      ...metadata,
      deletionTimestamp: existing.metadata.deletionTimestamp ?? timestamp(),
      ...(grace !== undefined && { deletionGracePeriodSeconds: grace }),
      ...(finalizers.length > 0 && { finalizers }),
    },
  };
  const changed =
    existing.metadata.deletionTimestamp === undefined ||
    grace !== stored ||
    !isDeepStrictEqual(new Set(before), new Set(finalizers));
  return { remove: false, marked, changed };
}

/**
 * Carries the deletion out: removes the object (one commit) or writes the mark. Returns the object as the
 * deletion left it (the removed one with the deletion's resourceVersion, or the marked one), and whether
 * it is gone. The store's listeners run before this returns, so a mark the lifecycle can finish at once
 * (no dependents to wait for) is already gone: the answer says so.
 */
export function terminate(
  store: ObjectStore,
  kind: KindName,
  existing: StoredObject,
  options: TerminationOptions,
): { object: StoredObject; gone: boolean } | undefined {
  const termination = terminationOf(kind, existing, options);
  const { name, uid } = existing.metadata;
  if (termination.remove) {
    const [removed] = store.deleteMany([{ kind, name, uid }]);
    return removed && { object: removed, gone: true };
  }
  const written = termination.changed ? store.update(kind, termination.marked) : existing;
  const now = store.get(kind, name);
  if (now !== undefined && now.metadata.uid === uid) return { object: now, gone: false };
  return { object: written, gone: true };
}

/**
 * The finalizers after a deletion with `policy`, as Kubernetes computes them: both propagation finalizers
 * are dropped and the one the policy names is added; without a policy, those already there stay.
 */
function propagationFinalizers(
  finalizers: readonly string[],
  policy: PropagationPolicy | undefined,
): string[] {
  const others = finalizers.filter((entry) => entry !== ORPHAN_FINALIZER && entry !== FOREGROUND_FINALIZER);
  const orphan = policy === undefined ? finalizers.includes(ORPHAN_FINALIZER) : policy === "Orphan";
  const foreground =
    policy === undefined ? finalizers.includes(FOREGROUND_FINALIZER) : policy === "Foreground";
  return [...others, ...(orphan ? [ORPHAN_FINALIZER] : []), ...(foreground ? [FOREGROUND_FINALIZER] : [])];
}
