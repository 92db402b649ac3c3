import type { ApiObject } from "../../../sdk/client/types";
import { invalid } from "../../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../../sdk/schema";
import { isRecord } from "../../records";
import { timestamp } from "../../storage";
import {
  decodeManagedFields,
  encodeManagedFields,
  type ManagedFieldsEntry,
  type Manager,
  sameManager,
  transferOwnership,
} from "./ownership";
import { structureOf, trackedOf, type WrittenPart } from "./tracked";
import { compare } from "./values";

export type { ManagedFieldsEntry } from "./ownership";
export type { WrittenPart } from "./tracked";

/**
 * The field ownership every write records in `metadata.managedFields`, as the Kubernetes API server keeps
 * it: POST, PUT and merge/JSON patches here (an `Update` entry per manager), server-side apply in ../apply
 * (an `Apply` entry), both on the structured merge of the modules beside this one.
 */

/** The object with its managed fields set (or removed when there are none). */
export function withManagedFields(
  object: ApiObject,
  managedFields: ManagedFieldsEntry[] | undefined,
): ApiObject {
  const { managedFields: _old, ...metadata } = object.metadata;
  return { ...object, metadata: { ...metadata, ...(managedFields && { managedFields }) } };
}

/** The managedFields entry of a write to `part`: `subresource: "status"` for the status, as kube-apiserver writes it. */
function subresourceOf(part: WrittenPart): { subresource?: string } {
  return part === "status" ? { subresource: "status" } : {};
}

/**
 * The managed fields after a POST, PUT or merge/JSON patch by `manager` (an `Update` entry): the manager
 * owns what the write changed or added, and takes it from every other manager; what the write removed
 * leaves everyone. `sent` is the `metadata.managedFields` of the body: when it holds entries they are the
 * starting point (clients may rewrite ownership, as kubectl does when it moves to server-side apply;
 * `[{}]` clears it), otherwise the stored ones are. A write to the status subresource (`part` "status")
 * compares the status and the metadata of the object it was asked to store (`object`, before the stored
 * metadata is put back) and records an entry with `subresource: "status"`, as kube-apiserver does.
 */
export function managedFieldsAfterUpdate(
  kind: KindName,
  existing: ApiObject | undefined,
  object: { metadata: { name: string }; spec?: unknown; status?: unknown },
  manager: string,
  sent: unknown,
  part: WrittenPart = "spec",
): ManagedFieldsEntry[] | undefined {
  // `[{}]` is Kubernetes' way to reset ownership: no manager owns anything before this write.
  const reset =
    Array.isArray(sent) && sent.length === 1 && isRecord(sent[0]) && Object.keys(sent[0]).length === 0;
  const fromBody = decodeManagedFields(reset ? [] : sent);
  if (fromBody.problems.length > 0) {
    throw invalid(
      KINDS[kind],
      object.metadata.name,
      fromBody.problems.map((problem) => ({ reason: "FieldValueInvalid", ...problem })),
    );
  }
  const managers =
    reset || fromBody.managers.length > 0
      ? fromBody.managers
      : existing
        ? decodeManagedFields(existing.metadata.managedFields).managers
        : [];
  const changes = compare(structureOf(kind, part), trackedOf(existing, part), trackedOf(object, part));
  const writer = { manager, operation: "Update" as const, ...subresourceOf(part) };
  const { managers: kept } = transferOwnership(managers, writer, changes);
  const taken = changes.modified.union(changes.added);
  const previous = kept.find((entry) => sameManager(entry, writer));
  const others = kept.filter((entry) => !sameManager(entry, writer));
  const fields = (previous?.fields.difference(changes.removed) ?? taken).union(taken);
  // The time says when the manager last changed something: a write that changed nothing keeps it.
  const time = taken.isEmpty() ? previous?.time : timestamp();
  const entry: Manager | undefined = fields.isEmpty()
    ? undefined
    : {
        ...writer,
        apiVersion: KINDS[kind].apiVersion,
        fields,
        ...(time && { time }),
      };
  return encodeManagedFields(entry ? [...others, entry] : others);
}

/** The `metadata.managedFields` of a request body, when it has metadata. */
export function sentManagedFields(body: unknown): unknown {
  return isRecord(body) && isRecord(body.metadata) ? body.metadata.managedFields : undefined;
}
