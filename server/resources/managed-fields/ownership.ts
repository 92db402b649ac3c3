import type { ManagedFieldsEntry } from "../../../sdk/client/types";
import { isRecord } from "../../records";
import { FieldSet, formatPath, type Path } from "./fieldset";
import type { Comparison } from "./values";

/**
 * `metadata.managedFields`: which manager owns which fields, one entry per manager and operation, in the
 * shape Kubernetes gives it. An `Apply` entry holds the fields of the manager's last applied
 * configuration; an `Update` entry the fields the manager's other writes (POST, PUT, merge and JSON
 * patches) changed.
 */

export type { ManagedFieldsEntry };
export type Operation = ManagedFieldsEntry["operation"];

/** A manager's entry, decoded. */
export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  subresource?: string;
  fields: FieldSet;
}

/** An entry that cannot be read: the JSON path of the culprit and what is wrong with it. */
export interface ManagedFieldsProblem {
  field: string;
  message: string;
}

/** Entries are told apart by manager, operation and subresource, as in Kubernetes. */
export function sameManager(a: Pick<Manager, "manager" | "operation" | "subresource">, b: typeof a): boolean {
  return (
    a.manager === b.manager && a.operation === b.operation && (a.subresource ?? "") === (b.subresource ?? "")
  );
}

/** Reads `metadata.managedFields`; the problems are empty when every entry is well formed. */
export function decodeManagedFields(value: unknown): {
  managers: Manager[];
  problems: ManagedFieldsProblem[];
} {
  const problems: ManagedFieldsProblem[] = [];
  const managers: Manager[] = [];
  if (value === undefined || value === null) return { managers, problems };
  if (!Array.isArray(value)) {
    return {
      managers,
      problems: [
        { field: "metadata.managedFields", message: "metadata.managedFields: must be a list of entries" },
      ],
    };
  }
  value.forEach((entry: unknown, index) => {
    const at = `metadata.managedFields[${index}]`;
    const problem = (field: string, message: string) =>
      problems.push({ field: `${at}.${field}`, message: `${at}.${field}: ${message}` });
    if (!isRecord(entry)) {
      problems.push({ field: at, message: `${at}: must be an object (manager, operation, fieldsV1, …)` });
      return;
    }
    const { manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource } = entry;
    if (typeof manager !== "string") problem("manager", "must be a string");
    if (operation !== "Apply" && operation !== "Update")
      problem("operation", `must be "Apply" or "Update", got ${JSON.stringify(operation)}`);
    if (fieldsType !== "FieldsV1")
      problem("fieldsType", `must be "FieldsV1", got ${JSON.stringify(fieldsType)}`);
    if (apiVersion !== undefined && typeof apiVersion !== "string") problem("apiVersion", "must be a string");
    if (time !== undefined && time !== null && typeof time !== "string")
      problem("time", "must be a timestamp");
    if (subresource !== undefined && typeof subresource !== "string")
      problem("subresource", "must be a string");
    const fields = FieldSet.fromFieldsV1(fieldsV1 ?? {});
    if (fields === undefined)
      problem("fieldsV1", 'must be a trie of field paths, such as {"f:spec": {"f:provider": {}}}');
    if (problems.length > 0 || fields === undefined) return;
    managers.push({
      manager: manager as string,
      operation: operation as Operation,
      apiVersion: (apiVersion as string | undefined) ?? "",
      ...(typeof time === "string" && { time }),
      ...(typeof subresource === "string" && subresource !== "" && { subresource }),
      fields,
    });
  });
  return { managers, problems };
}

/** Writes the entries in Kubernetes' order: Apply before Update, then by time, manager and apiVersion. */
export function encodeManagedFields(managers: readonly Manager[]): ManagedFieldsEntry[] | undefined {
  const entries = managers
    .filter((entry) => !entry.fields.isEmpty())
    .sort(
      (a, b) =>
        compareText(a.operation, b.operation) ||
        compareText(a.time ?? "", b.time ?? "") ||
        compareText(a.manager, b.manager) ||
        compareText(a.apiVersion, b.apiVersion) ||
        compareText(a.subresource ?? "", b.subresource ?? ""),
    )
    .map(
      (entry): ManagedFieldsEntry => ({
        manager: entry.manager,
        operation: entry.operation,
        apiVersion: entry.apiVersion,
        ...(entry.time !== undefined && { time: entry.time }),
        fieldsType: "FieldsV1",
        fieldsV1: entry.fields.toFieldsV1(),
        ...(entry.subresource !== undefined && { subresource: entry.subresource }),
      }),
    );
  return entries.length === 0 ? undefined : entries;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A field another manager owns that the write would change. */
export interface Conflict {
  manager: Manager;
  path: Path;
}

/**
 * Ownership after a write of `changes` by `writer` (structured-merge-diff's update): the fields the write
 * changed or added leave every other manager (a conflict when `force` is false, which the caller refuses),
 * the fields it removed leave everyone, and entries left without fields disappear.
 */
export function transferOwnership(
  managers: readonly Manager[],
  writer: Pick<Manager, "manager" | "operation" | "subresource">,
  changes: Comparison,
): { managers: Manager[]; conflicts: Conflict[] } {
  const taken = changes.modified.union(changes.added);
  const conflicts: Conflict[] = [];
  const next = managers.map((entry) => {
    if (sameManager(entry, writer)) return entry;
    const lost = entry.fields.intersection(taken);
    for (const path of lost.paths()) conflicts.push({ manager: entry, path });
    return { ...entry, fields: entry.fields.difference(lost).difference(changes.removed) };
  });
  return { managers: next.filter((entry) => !entry.fields.isEmpty()), conflicts };
}

/** How Kubernetes names a manager in a conflict: `"a"`, or `"kubectl" using apps/v1` for an Update entry. */
export function describeManager(entry: Manager): string {
  const name = JSON.stringify(entry.manager);
  const withSubresource =
    entry.subresource === undefined ? name : `${name} with subresource ${JSON.stringify(entry.subresource)}`;
  return entry.operation === "Update" ? `${withSubresource} using ${entry.apiVersion}` : withSubresource;
}

/** The cause of a 409 for one conflict, and the message of the whole answer, as Kubernetes words them. */
export function conflictCauses(conflicts: readonly Conflict[]) {
  return conflicts.map((conflict) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${describeManager(conflict.manager)}`,
    field: formatPath(conflict.path),
  }));
}

export function conflictMessage(conflicts: readonly Conflict[]): string {
  const [only] = conflicts;
  if (conflicts.length === 1 && only !== undefined) {
    return `Apply failed with 1 conflict: conflict with ${describeManager(only.manager)}: ${formatPath(only.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const conflict of conflicts) {
    const name = describeManager(conflict.manager);
    byManager.set(name, [...(byManager.get(name) ?? []), formatPath(conflict.path)]);
  }
  const lines = [...byManager.keys()]
    .sort()
    .flatMap((name) => [
      `conflicts with ${name}:`,
      ...(byManager.get(name) ?? []).map((path) => `- ${path}`),
    ]);
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}
