import { type ApiError, ConflictError, type ManagedFieldsEntry, type ObjectMeta } from "../sdk/client";
import { isRecord } from "../sdk/shared/records";

/**
 * The field manager of every write the provider makes: an `Apply` entry in `metadata.managedFields` with
 * server-side apply, an `Update` entry for POST and PUT. One name for every stack: which object a resource
 * manages is settled by its uid and create token, not by the manager's name.
 */
export const FIELD_MANAGER = "pulumi-exampledev";

/** One field another manager owns, from a 409's `FieldManagerConflict` cause. */
export interface FieldConflict {
  /** The manager as the server names it: `kubectl`, or `unknown` (`""` before) for writes that named none. */
  manager: string;
  /** `.spec.shutdown.drainTimeout`, as the server gives it. */
  field: string;
}

/** The fields a server-side apply conflicted on, or undefined when the error is not such a conflict. */
export function fieldConflicts(error: unknown): FieldConflict[] | undefined {
  if (!(error instanceof ConflictError)) return undefined;
  const conflicts = error.causes
    .filter((cause) => cause.reason === "FieldManagerConflict")
    .map((cause) => ({
      // `conflict with "kubectl"` (an Apply entry) or `conflict with "kubectl" using <apiVersion>` (an Update).
      manager: /conflict with "((?:[^"\\]|\\.)*)"/.exec(cause.message ?? "")?.[1] ?? "",
      field: cause.field ?? "",
    }));
  return conflicts.length > 0 ? conflicts : undefined;
}

/**
 * Whether the provider itself wrote the fields `manager` owns, so that an apply may take them over without
 * asking: its own POSTs and PUTs (`Update` entries of FIELD_MANAGER, when the setting was off), and, until the
 * object has an `Apply` entry of FIELD_MANAGER, the writes of provider versions that named no manager: the
 * server records those as `unknown` (as `""` before it named them).
 */
export function isOwnManager(manager: string, object: { metadata: ObjectMeta }): boolean {
  if (manager === FIELD_MANAGER) return true;
  return UNNAMED_MANAGERS.has(manager) && !hasOwnApplyEntry(object);
}

/** How the server records a write that named no manager and sent no User-Agent: now, and before. */
const UNNAMED_MANAGERS: ReadonlySet<string> = new Set(["unknown", ""]);

function hasOwnApplyEntry(object: { metadata: ObjectMeta }): boolean {
  return (object.metadata.managedFields ?? []).some(
    (entry) => entry.manager === FIELD_MANAGER && entry.operation === "Apply" && !entry.subresource,
  );
}

/**
 * The managedFields with the provider's own `Update` entries (see `isOwnManager`) merged into its `Apply`
 * entry, or undefined when there are none. Server-side apply removes a field the manager no longer sends
 * only when that manager's `Apply` entry holds it and no other entry does: without this, a label or an
 * optional field the provider wrote by POST or PUT (before the setting was on) would stay on the object
 * after the program dropped it. It is what pulumi-kubernetes does when it moves a resource from client-side
 * to server-side apply.
 */
export function ownershipMigration(object: {
  apiVersion: string;
  metadata: ObjectMeta;
}): ManagedFieldsEntry[] | undefined {
  const entries = object.metadata.managedFields ?? [];
  const own = (entry: ManagedFieldsEntry) =>
    entry.operation === "Update" && !entry.subresource && isOwnManager(entry.manager, object);
  const updates = entries.filter(own);
  if (updates.length === 0) return undefined;
  const apply = entries.find(
    (entry) => entry.manager === FIELD_MANAGER && entry.operation === "Apply" && !entry.subresource,
  );
  const merged: ManagedFieldsEntry = {
    manager: FIELD_MANAGER,
    operation: "Apply",
    apiVersion: apply?.apiVersion ?? object.apiVersion,
    ...((apply?.time ?? updates[0]?.time) !== undefined && { time: apply?.time ?? updates[0]?.time }),
    fieldsType: "FieldsV1",
    fieldsV1: [apply, ...updates].reduce<Record<string, unknown>>(
      (fields, entry) => mergeFieldSets(fields, entry?.fieldsV1 ?? {}),
      {},
    ),
  };
  return [...entries.filter((entry) => !own(entry) && entry !== apply), merged];
}

/** The union of two FieldsV1 tries (`f:`/`k:`/`.` keys, `{}` leaves). */
function mergeFieldSets(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = merged[key];
    merged[key] =
      isRecord(existing) && isRecord(value) ? mergeFieldSets(existing, value) : (value ?? existing);
  }
  return merged;
}

/**
 * The error for an apply that conflicts with other managers: the server's message (each field and its
 * manager), then what to do about it.
 */
export function conflictFailure(kind: string, name: string, error: ApiError, conflicts: FieldConflict[]) {
  const managers = [...new Set(conflicts.map((conflict) => JSON.stringify(conflict.manager)))].join(", ");
  return new Error(
    `${error.message}. ${kind} "${name}" would change fields that another field manager (${managers}) owns, ` +
      `and server-side apply does not take them over unasked: nothing was changed. To take them over, set ` +
      `\`exampledev:serverSideApplyForce\` to true (or EXAMPLEDEV_SERVER_SIDE_APPLY_FORCE=true) for an up; ` +
      `or leave them out of the program; or have ${managers} stop managing them`,
    { cause: error },
  );
}
