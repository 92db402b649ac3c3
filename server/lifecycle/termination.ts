import { isDeepStrictEqual } from "node:util";
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "../../admission/finalizers";
import type { ApiObject } from "../../sdk/client/types";
import type { KindName } from "../../sdk/schema";
import { type ObjectStore, timestamp } from "../storage";

/** Kubernetes' `DeleteOptions.propagationPolicy`: what happens to the objects the deleted one owns. */
export type PropagationPolicy = "Foreground" | "Background" | "Orphan";
export const PROPAGATION_POLICIES: readonly PropagationPolicy[] = ["Foreground", "Background", "Orphan"];

export interface TerminationOptions {
  /** Unset: Background, unless the object already carries a propagation finalizer (kept, as in Kubernetes). */
  propagationPolicy?: PropagationPolicy;
}

/** What deleting an object does: remove it now, or mark it and let the lifecycle remove it later. */
export type Termination = { remove: true } | { remove: false; marked: ApiObject; changed: boolean };

/**
 * How a deletion goes, as Kubernetes' registry decides it for a custom resource: the propagation policy
 * becomes a finalizer (`foregroundDeletion`: the object goes after its dependents; `orphan`: once they no
 * longer name it), and an object that has finalizers is only marked with a `deletionTimestamp` and a
 * `deletionGracePeriodSeconds` of 0 (what kube-apiserver records for any object that is not a pod, whatever
 * grace the request asked for); anything else is removed at once. A Proxy's drain is such a finalizer, held
 * by the controller. Deleting an object already marked changes only its propagation finalizers.
 */
export function terminationOf(existing: ApiObject, options: TerminationOptions): Termination {
  const before = existing.metadata.finalizers ?? [];
  const finalizers = propagationFinalizers(before, options.propagationPolicy);
  if (finalizers.length === 0) return { remove: true };
  const { finalizers: _previous, ...metadata } = existing.metadata;
  const marked: ApiObject = {
    ...existing,
    metadata: {
      ...metadata,
      deletionTimestamp: existing.metadata.deletionTimestamp ?? timestamp(),
      deletionGracePeriodSeconds: 0,
      finalizers,
    },
  };
  const changed =
    existing.metadata.deletionTimestamp === undefined ||
    existing.metadata.deletionGracePeriodSeconds !== 0 ||
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
  existing: ApiObject,
  options: TerminationOptions,
): { object: ApiObject; gone: boolean } | undefined {
  const termination = terminationOf(existing, options);
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
