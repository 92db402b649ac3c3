import { isDeepStrictEqual } from "node:util";
import type { ApiObject } from "../../../sdk/client/types";
import {
  apiError,
  badRequest,
  conflict,
  invalid,
  notFound,
  resourceDetails,
} from "../../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../../sdk/schema";
import {
  admitForStore,
  admitStatus,
  type FieldValidation,
  readEnvelope,
  withDrainFinalizer,
} from "../../admission";
import { isRecord, withoutUndefined } from "../../records";
import { checkPreconditions, type ObjectStore, timestamp, uidOfNoObject } from "../../storage";
import { wouldCreate, wouldUpdate, wouldUpdateStatus } from "../dry-run";
import { checkObjectSize } from "../object-size";
import { redactObject } from "../redaction";
import {
  conflictCauses,
  conflictMessage,
  decodeManagedFields,
  encodeManagedFields,
  type ManagedFieldsEntry,
  type Manager,
  sameManager,
  transferOwnership,
} from "./managed-fields";
import { objectStructure, STATUS_STRUCTURE, type Structure } from "./structure";
import { compare, configProblems, fieldSetOf, merge, removePaths } from "./values";

export type { ManagedFieldsEntry } from "./managed-fields";

/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`) and the field ownership every other
 * write records, as the Kubernetes API server does them. An apply merges the manager's configuration
 * onto the object, removes what the manager applied last time and no longer sends (unless another
 * manager owns it too), and refuses (409) to change a field another manager owns unless forced. The
 * result is then admitted exactly like a PUT: schema validation, defaults, unknown fields per
 * fieldValidation, secrets restored from placeholders.
 */

/** The part of an object managers own: client metadata, and the spec (or the status through `/status`). */
interface Tracked {
  metadata?: Record<string, unknown>;
  spec?: unknown;
  status?: unknown;
}

const TRACKED_METADATA = ["labels", "annotations", "ownerReferences", "finalizers"] as const;

/** Where a write goes: the object itself (`spec`), or its status subresource (`status`). */
export type WrittenPart = "spec" | "status";

function trackedOf(
  object: { metadata?: unknown; spec?: unknown; status?: unknown } | undefined,
  part: WrittenPart = "spec",
): Tracked {
  // Before a create there is an object with metadata (its name) and nothing else, as in Kubernetes.
  if (object === undefined) return { metadata: {} };
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const kept = withoutUndefined(Object.fromEntries(TRACKED_METADATA.map((key) => [key, metadata[key]])));
  // Metadata always exists (it holds the name), so it is never added or removed as a whole.
  return withoutUndefined({ metadata: kept, [part]: object[part] ?? undefined });
}

/** The structure of what `part` writes own. */
function structureOf(kind: KindName, part: WrittenPart): Structure {
  return part === "status" ? STATUS_STRUCTURE : objectStructure(kind);
}

/** The managedFields entry of a write to `part`: `subresource: "status"` for the status, as kube-apiserver writes it. */
function subresourceOf(part: WrittenPart): { subresource?: string } {
  return part === "status" ? { subresource: "status" } : {};
}

/** A JSON value without its nulls: an applied `null` sets nothing (kubectl sends `creationTimestamp: null`). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isRecord(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null) continue;
    Object.defineProperty(kept, key, {
      value: withoutNulls(field),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return kept;
}

export interface ApplyOptions {
  manager: string;
  force: boolean;
  fieldValidation: FieldValidation;
  /** Compute and admit, but store nothing (`dryRun=All`). */
  dryRun: boolean;
}

export interface Applied {
  object: ApiObject;
  warnings: string[];
  /** The apply created the object (201). */
  created: boolean;
}

/**
 * The kind an apply writes to, the store that holds it, the largest object it may store, and whether a
 * Proxy it creates gets the drain finalizer.
 */
export interface ApplyTarget {
  kind: KindName;
  store: ObjectStore;
  maxObjectBytes: number;
  drainProxies?: boolean;
}

/**
 * Applies `body` (the manager's configuration, already parsed) to the object `name` of `kind`. The merged
 * object is refused (413) when larger than `maxObjectBytes` as JSON, before admission and before storing.
 */
export function applyObject(
  { kind, store, maxObjectBytes, drainProxies }: ApplyTarget,
  name: string,
  body: unknown,
  options: ApplyOptions,
): Applied {
  const structure = objectStructure(kind);
  const { config, configTracked } = checkedConfig(kind, name, body, structure);

  const existing = store.get(kind, name);
  const managers = existing ? decodeManagedFields(existing.metadata.managedFields).managers : [];
  const writer = { manager: options.manager, operation: "Apply" as const };
  const previous = managers.find((entry) => sameManager(entry, writer));
  const others = managers.filter((entry) => !sameManager(entry, writer));
  const applied = fieldSetOf(structure, configTracked);

  // The configuration onto the object as clients read it (placeholders for secrets, restored by admission).
  let merged = merge(structure, trackedOf(existing && redactObject(existing)), configTracked);
  if (previous !== undefined) {
    const stillOwned = others.reduce((owned, entry) => owned.union(entry.fields), applied).withNamedParents();
    merged = removePaths(structure, merged, previous.fields.withNamedParents().difference(stillOwned));
  }

  const candidate = candidateBody(kind, name, config, merged as Tracked, existing);
  checkObjectSize(kind, candidate, maxObjectBytes);
  const envelope = readEnvelope(kind, candidate);
  if (existing) {
    checkPreconditions(kind, existing, { uid: envelope.uid });
    if (envelope.metadata.resourceVersion !== existing.metadata.resourceVersion)
      throw conflict(KINDS[kind], name);
  } else if (envelope.uid !== undefined) {
    // A uid names an object that exists: an apply never creates one under it (kube-apiserver: 409 as well).
    throw uidOfNoObject(kind, name, envelope.uid);
  } else if (envelope.metadata.resourceVersion !== undefined) {
    // A version names an object that exists; there is none to match (Kubernetes: 409 as well).
    throw conflict(KINDS[kind], name);
  }
  const { object, warnings } = admitForStore(kind, envelope, options, existing);

  const changes = compare(structure, trackedOf(existing), trackedOf(object));
  const { managers: kept, conflicts } = transferOwnership(others, writer, changes);
  if (conflicts.length > 0 && !options.force) {
    throw apiError("Conflict", conflictMessage(conflicts), {
      ...resourceDetails(KINDS[kind], name),
      causes: conflictCauses(conflicts),
    });
  }
  const changed = !isDeepStrictEqual(trackedOf(existing), trackedOf(object));
  const entry: Manager = {
    manager: options.manager,
    operation: "Apply",
    apiVersion: KINDS[kind].apiVersion,
    fields: applied,
    time: entryTime(changed, previous, applied),
  };
  const managedFields = encodeManagedFields([...kept, entry]);

  if (existing) {
    const unchanged =
      !changed &&
      isDeepStrictEqual(
        withoutTimes(existing.metadata.managedFields),
        withoutTimes(managedFields as unknown[] | undefined),
      );
    // Nothing to write: the object keeps its resourceVersion, as an unchanged update does in Kubernetes.
    if (unchanged) return { object: existing, warnings, created: false };
  }
  const owned = withManagedFields(object, managedFields);
  const result = existing === undefined && drainProxies ? withDrainFinalizer(owned) : owned;
  checkObjectSize(kind, result, maxObjectBytes);
  if (options.dryRun) {
    const would = existing ? wouldUpdate(kind, store, result) : wouldCreate(kind, store, result);
    return { object: would, warnings, created: !existing };
  }
  if (existing) return { object: store.update(kind, result), warnings, created: false };
  return { object: store.create(kind, result), warnings, created: true };
}

/**
 * Server-side apply to the status subresource, as kube-apiserver applies to a CRD's `/status`: the
 * configuration is merged onto the object and the manager's `Apply` entry (`subresource: "status"`) records
 * the status and metadata fields it holds (the status strategy resets only `spec`, so the spec is neither
 * merged nor owned), conflicts with other managers of those fields are refused unless forced, and only the
 * merged status is stored. The object must exist (404): a status write never creates one.
 */
export function applyStatus(
  { kind, store, maxObjectBytes }: ApplyTarget,
  name: string,
  body: unknown,
  options: ApplyOptions,
): { object: ApiObject; warnings: string[] } {
  const { config, configTracked } = checkedConfig(kind, name, body, STATUS_STRUCTURE, "status");
  const existing = store.get(kind, name);
  if (existing === undefined) throw notFound(KINDS[kind], name);
  const managers = decodeManagedFields(existing.metadata.managedFields).managers;
  const writer = { manager: options.manager, operation: "Apply" as const, subresource: "status" };
  const previous = managers.find((entry) => sameManager(entry, writer));
  const others = managers.filter((entry) => !sameManager(entry, writer));
  const applied = fieldSetOf(STATUS_STRUCTURE, configTracked);

  const live = trackedOf(existing, "status");
  let merged = merge(STATUS_STRUCTURE, live, configTracked) as Tracked;
  if (previous !== undefined) {
    const stillOwned = others.reduce((owned, entry) => owned.union(entry.fields), applied).withNamedParents();
    merged = removePaths(
      STATUS_STRUCTURE,
      merged,
      previous.fields.withNamedParents().difference(stillOwned),
    ) as Tracked;
  }

  // What admission reads: the configuration's envelope (a uid or a resourceVersion is a precondition).
  const configMetadata = isRecord(config.metadata) ? config.metadata : {};
  const envelope = readEnvelope(kind, {
    ...config,
    kind: config.kind ?? kind,
    metadata: { ...configMetadata, name },
  });
  checkPreconditions(kind, existing, { uid: envelope.uid });
  const resourceVersion = envelope.metadata.resourceVersion ?? existing.metadata.resourceVersion;
  if (resourceVersion !== existing.metadata.resourceVersion) throw conflict(KINDS[kind], name);
  const { status, warnings } = admitStatus(kind, name, envelope, merged.status, options.fieldValidation);

  const changes = compare(STATUS_STRUCTURE, live, merged);
  const { managers: kept, conflicts } = transferOwnership(others, writer, changes);
  if (conflicts.length > 0 && !options.force) {
    throw apiError("Conflict", conflictMessage(conflicts), {
      ...resourceDetails(KINDS[kind], name),
      causes: conflictCauses(conflicts),
    });
  }
  const changed = !isDeepStrictEqual(existing.status, status);
  const entry: Manager = {
    ...writer,
    apiVersion: KINDS[kind].apiVersion,
    fields: applied,
    time: entryTime(changed, previous, applied),
  };
  const managedFields = encodeManagedFields([...kept, entry]);
  const unchanged =
    !changed &&
    isDeepStrictEqual(
      withoutTimes(existing.metadata.managedFields),
      withoutTimes(managedFields as unknown[] | undefined),
    );
  // Nothing to write: the object keeps its resourceVersion, as an unchanged update does in Kubernetes.
  if (unchanged) return { object: existing, warnings };
  const { status: _stored, ...rest } = existing;
  const result = withManagedFields({ ...rest, ...(status && { status }) }, managedFields);
  checkObjectSize(kind, result, maxObjectBytes);
  if (options.dryRun) return { object: wouldUpdateStatus(kind, store, result), warnings };
  return { object: store.replaceStatus(kind, result), warnings };
}

function withoutTimes(entries: unknown[] | undefined): unknown[] {
  return (entries ?? []).map((entry) => (isRecord(entry) ? { ...entry, time: undefined } : entry));
}

/** Checks what Kubernetes checks of an applied configuration before it merges anything. */
function readConfig(kind: KindName, name: string, body: unknown): Record<string, unknown> {
  if (!isRecord(body)) {
    throw badRequest(
      `an apply patch must be one object: a ${kind} with apiVersion, kind, metadata and the fields you manage`,
    );
  }
  const config = withoutNulls(body) as Record<string, unknown>;
  const metadata = config.metadata ?? {};
  if (!isRecord(metadata)) throw badRequest("metadata must be an object");
  if (body.metadata !== undefined && isRecord(body.metadata) && body.metadata.managedFields !== undefined) {
    throw badRequest(
      "metadata.managedFields must be nil: an apply patch names the fields it manages by sending them",
    );
  }
  if (metadata.name !== undefined && metadata.name !== name) {
    throw badRequest(
      `the name of the object (${String(metadata.name)}) does not match the name on the URL (${name}); set metadata.name to "${name}"`,
    );
  }
  return config;
}

/**
 * The body admission reads: the merged client metadata and spec, and beside them whatever else the
 * configuration holds (unknown fields are reported or dropped per fieldValidation; a uid or a
 * resourceVersion is a precondition, as in a PUT).
 */
function candidateBody(
  kind: KindName,
  name: string,
  config: Record<string, unknown>,
  merged: Tracked,
  existing: ApiObject | undefined,
): Record<string, unknown> {
  const configMetadata = isRecord(config.metadata) ? config.metadata : {};
  const metadata: Record<string, unknown> = { ...configMetadata };
  for (const key of TRACKED_METADATA) {
    if (merged.metadata?.[key] === undefined) delete metadata[key];
    else metadata[key] = merged.metadata[key];
  }
  metadata.name = name;
  metadata.resourceVersion = configMetadata.resourceVersion ?? existing?.metadata.resourceVersion;
  const { status: _ignored, ...rest } = config;
  return {
    ...rest,
    apiVersion: config.apiVersion,
    kind: config.kind ?? kind,
    metadata,
    spec: merged.spec ?? {},
  };
}

/** The object with its managed fields set (or removed when there are none). */
export function withManagedFields(
  object: ApiObject,
  managedFields: ManagedFieldsEntry[] | undefined,
): ApiObject {
  const { managedFields: _old, ...metadata } = object.metadata;
  return { ...object, metadata: { ...metadata, ...(managedFields && { managedFields }) } };
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

/** The apply configuration read from the body, and its fields; 422 when they do not fit `structure`. */
function checkedConfig(
  kind: KindName,
  name: string,
  body: unknown,
  structure: Parameters<typeof configProblems>[0],
  part?: Parameters<typeof trackedOf>[1],
) {
  const config = readConfig(kind, name, body);
  const configTracked = trackedOf(config, part);
  const problems = configProblems(structure, configTracked);
  if (problems.length > 0) {
    throw invalid(
      KINDS[kind],
      name,
      problems.map((problem) => ({ reason: "FieldValueInvalid", ...problem })),
    );
  }
  return { config, configTracked };
}

/** An apply entry keeps its time when neither the object nor the fields it owns changed (as Kubernetes does). */
function entryTime(changed: boolean, previous: Manager | undefined, applied: Manager["fields"]): string {
  return changed || previous === undefined || !previous.fields.equals(applied) || previous.time === undefined
    ? timestamp()
    : previous.time;
}
