import { isDeepStrictEqual } from "node:util";
import type { ApiObject } from "../../../sdk/client/types";
import { apiError, resourceDetails } from "../../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../../sdk/schema";
import { isRecord } from "../../records";
import { timestamp } from "../../storage";
import {
  conflictCauses,
  conflictMessage,
  decodeManagedFields,
  encodeManagedFields,
  type ManagedFieldsEntry,
  type Manager,
  sameManager,
  transferOwnership,
} from "../managed-fields/ownership";
import type { Structure } from "../managed-fields/structure";
import type { Tracked } from "../managed-fields/tracked";
import { type Comparison, fieldSetOf, removePaths } from "../managed-fields/values";

/** The Apply entry an apply writes, told apart from others by manager and subresource. */
export type ApplyWriter = Pick<Manager, "manager" | "operation" | "subresource"> & { operation: "Apply" };

/** Who owns what before an apply: the writer's last Apply entry, every other entry, what it now applies. */
export interface Owners {
  writer: ApplyWriter;
  previous: Manager | undefined;
  others: Manager[];
  applied: Manager["fields"];
}

export function ownersBefore(
  existing: ApiObject | undefined,
  writer: ApplyWriter,
  structure: Structure,
  configTracked: Tracked,
): Owners {
  const managers = existing ? decodeManagedFields(existing.metadata.managedFields).managers : [];
  return {
    writer,
    previous: managers.find((entry) => sameManager(entry, writer)),
    others: managers.filter((entry) => !sameManager(entry, writer)),
    applied: fieldSetOf(structure, configTracked),
  };
}

/** `merged` without the fields the manager applied last time and no longer sends, unless another owns them. */
export function withoutReleased<T>(
  structure: Structure,
  merged: T,
  { previous, others, applied }: Owners,
): T {
  if (previous === undefined) return merged;
  const stillOwned = others.reduce((owned, entry) => owned.union(entry.fields), applied).withNamedParents();
  return removePaths(structure, merged, previous.fields.withNamedParents().difference(stillOwned)) as T;
}

/**
 * The managed fields after the apply of `changes`: 409 when it changes fields another manager owns, unless
 * forced (then they leave that manager); the writer's entry holds exactly what it applied.
 */
export function managedFieldsAfterApply(
  kind: KindName,
  name: string,
  { writer, previous, others, applied }: Owners,
  changes: Comparison,
  { changed, force }: { changed: boolean; force: boolean },
): ManagedFieldsEntry[] | undefined {
  const { managers: kept, conflicts } = transferOwnership(others, writer, changes);
  if (conflicts.length > 0 && !force) {
    throw apiError("Conflict", conflictMessage(conflicts), {
      ...resourceDetails(KINDS[kind], name),
      causes: conflictCauses(conflicts),
    });
  }
  const entry: Manager = {
    ...writer,
    apiVersion: KINDS[kind].apiVersion,
    fields: applied,
    time: entryTime(changed, previous, applied),
  };
  return encodeManagedFields([...kept, entry]);
}

/** An apply entry keeps its time when neither the object nor the fields it owns changed (as Kubernetes does). */
function entryTime(changed: boolean, previous: Manager | undefined, applied: Manager["fields"]): string {
  return changed || previous === undefined || !previous.fields.equals(applied) || previous.time === undefined
    ? timestamp()
    : previous.time;
}

/** The stored managed fields and the new ones are the same but for their times. */
export function sameOwnership(existing: ApiObject, managedFields: ManagedFieldsEntry[] | undefined): boolean {
  return isDeepStrictEqual(
    withoutTimes(existing.metadata.managedFields),
    withoutTimes(managedFields as unknown[] | undefined),
  );
}

function withoutTimes(entries: unknown[] | undefined): unknown[] {
  return (entries ?? []).map((entry) => (isRecord(entry) ? { ...entry, time: undefined } : entry));
}
