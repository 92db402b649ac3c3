import { isDeepStrictEqual } from "node:util";
import {
  admitForStore,
  admitStatus,
  type FieldValidation,
  readEnvelope,
  withDrainFinalizer,
} from "../../../admission";
import type { ApiObject } from "../../../sdk/client/types";
import { conflict, notFound } from "../../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../../sdk/schema";
import { isRecord } from "../../records";
import { checkPreconditions, type ObjectStore, uidOfNoObject } from "../../storage";
import { wouldCreate, wouldUpdate, wouldUpdateStatus } from "../dry-run";
import { withManagedFields } from "../managed-fields";
import { objectStructure, STATUS_STRUCTURE } from "../managed-fields/structure";
import { type Tracked, trackedOf } from "../managed-fields/tracked";
import { compare, merge } from "../managed-fields/values";
import { checkObjectSize } from "../object-size";
import { redactObject } from "../redaction";
import { candidateBody, checkedConfig } from "./config";
import { managedFieldsAfterApply, ownersBefore, sameOwnership, withoutReleased } from "./owners";

/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`), as the Kubernetes API server does it. An
 * apply merges the manager's configuration onto the object, removes what the manager applied last time and
 * no longer sends (unless another manager owns it too), and refuses (409) to change a field another
 * manager owns unless forced. The result is then admitted exactly like a PUT: schema validation, defaults,
 * unknown fields per fieldValidation, secrets restored from placeholders. The ownership other writes
 * record is ../managed-fields'.
 */

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
  const owners = ownersBefore(
    existing,
    { manager: options.manager, operation: "Apply" },
    structure,
    configTracked,
  );
  // The configuration onto the object as clients read it (placeholders for secrets, restored by admission).
  const merged = withoutReleased(
    structure,
    merge(structure, trackedOf(existing && redactObject(existing)), configTracked),
    owners,
  );

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
  const changed = !isDeepStrictEqual(trackedOf(existing), trackedOf(object));
  const managedFields = managedFieldsAfterApply(kind, name, owners, changes, {
    changed,
    force: options.force,
  });

  // Nothing to write: the object keeps its resourceVersion, as an unchanged update does in Kubernetes.
  if (existing && !changed && sameOwnership(existing, managedFields))
    return { object: existing, warnings, created: false };
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
 * the status fields it holds (the status strategy resets metadata and spec, so neither is merged nor owned),
 * conflicts with other managers of those fields are refused unless forced, and only the merged status is
 * stored. The object must exist (404): a status write never creates one.
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
  const writer = { manager: options.manager, operation: "Apply" as const, subresource: "status" };
  const owners = ownersBefore(existing, writer, STATUS_STRUCTURE, configTracked);
  const live = trackedOf(existing, "status");
  const merged = withoutReleased(
    STATUS_STRUCTURE,
    merge(STATUS_STRUCTURE, live, configTracked) as Tracked,
    owners,
  );

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
  const changed = !isDeepStrictEqual(existing.status, status);
  const managedFields = managedFieldsAfterApply(kind, name, owners, changes, {
    changed,
    force: options.force,
  });
  // Nothing to write: the object keeps its resourceVersion, as an unchanged update does in Kubernetes.
  if (!changed && sameOwnership(existing, managedFields)) return { object: existing, warnings };
  const { status: _stored, ...rest } = existing;
  const result = withManagedFields({ ...rest, ...(status && { status }) }, managedFields);
  checkObjectSize(kind, result, maxObjectBytes);
  if (options.dryRun) return { object: wouldUpdateStatus(kind, store, result), warnings };
  return { object: store.replaceStatus(kind, result), warnings };
}
