import type { StatusCause } from "../sdk/errors";
import { keyProblem, PROXY_DRAIN_FINALIZER } from "../sdk/schema";

/** The finalizer a Foreground deletion sets: the object goes once its dependents are gone. */
export const FOREGROUND_FINALIZER = "foregroundDeletion";
/** The finalizer an Orphan deletion sets: the object goes once its dependents no longer name it as owner. */
export const ORPHAN_FINALIZER = "orphan";
/** Finalizers Kubernetes defines without a domain. */
const STANDARD: ReadonlySet<string> = new Set([FOREGROUND_FINALIZER, ORPHAN_FINALIZER, "kubernetes"]);

/**
 * What Kubernetes validates in `metadata.finalizers`, as 422 causes: each a qualified name (`example.dev/x`),
 * not both `orphan` and `foregroundDeletion`, and none added to an object already being deleted. A name
 * without a domain (other than the standard ones) is accepted with a warning, as Kubernetes does.
 */
export function finalizerCauses(
  finalizers: readonly string[] | undefined,
  existing: { finalizers?: readonly string[]; deletionTimestamp?: string } | undefined,
): { causes: StatusCause[]; warnings: string[] } {
  const causes: StatusCause[] = [];
  const warnings: string[] = [];
  const field = "metadata.finalizers";
  for (const [index, finalizer] of (finalizers ?? []).entries()) {
    const problem = keyProblem(finalizer);
    if (problem !== undefined) {
      causes.push({
        reason: "FieldValueInvalid",
        field: `${field}[${index}]`,
        message: `${field}[${index}]: ${problem.replace(/^key /, "finalizer ")}`,
      });
    } else if (!finalizer.includes("/") && !STANDARD.has(finalizer)) {
      warnings.push(
        `${field}: "${finalizer}": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`,
      );
    }
  }
  const set = new Set(finalizers ?? []);
  if (set.has(FOREGROUND_FINALIZER) && set.has(ORPHAN_FINALIZER)) {
    causes.push({
      reason: "FieldValueInvalid",
      field,
      message: `${field}: finalizer ${ORPHAN_FINALIZER} and ${FOREGROUND_FINALIZER} cannot be both set`,
    });
  }
  if (existing?.deletionTimestamp !== undefined) {
    const before = new Set(existing.finalizers ?? []);
    const added = [...set].filter((finalizer) => !before.has(finalizer));
    if (added.length > 0) {
      causes.push({
        reason: "FieldValueForbidden",
        field,
        message: `${field}: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      });
    }
  }
  return { causes, warnings };
}

export function hasFinalizers(object: { metadata: { finalizers?: readonly string[] } }): boolean {
  return (object.metadata.finalizers?.length ?? 0) > 0;
}

/**
 * A Proxy created while the controller drains Proxies carries the drain finalizer from its first version,
 * as Kubernetes' StorageObjectInUseProtection admission gives a PersistentVolumeClaim its protection
 * finalizer: a Proxy deleted before the controller saw it still drains, and no later write of the
 * controller's changes the version a client was answered. Added after the request's managed fields are
 * computed, as kube-apiserver's mutating admission does, so no field manager owns it (an apply that leaves
 * it out does not remove it).
 */
export function withDrainFinalizer<T extends { kind?: string; metadata: { finalizers?: string[] } }>(
  object: T,
): T {
  const finalizers = object.metadata.finalizers ?? [];
  if (object.kind !== "Proxy" || finalizers.includes(PROXY_DRAIN_FINALIZER)) return object;
  return { ...object, metadata: { ...object.metadata, finalizers: [...finalizers, PROXY_DRAIN_FINALIZER] } };
}
