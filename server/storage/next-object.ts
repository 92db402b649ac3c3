import { isDeepStrictEqual } from "node:util";
import type { ApiObject } from "../../sdk/client/types";
import { alreadyExists, badRequest, conflict, notFound } from "../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../sdk/schema";
import { withoutUndefined } from "../records";
import type { ObjectMeta } from "./types";

// What a write stores, as pure functions of the stored object and the request: the store commits what they
// return and a dry run answers it, so the two cannot disagree. `resourceVersion` is the commit's; a dry run
// writes nothing, so it passes none (a create then has no version, an update or removal keeps the stored one).

/** What the store gives a new object; a dry run makes up a uid for its answer only. */
export interface NewIdentity {
  uid: string;
  creationTimestamp: string;
}

/** The object a create stores: checks as the create (400 without a name, 409 AlreadyExists) and builds it. */
export function createdObject(
  kind: KindName,
  stored: ApiObject | undefined,
  object: ApiObject,
  identity: NewIdentity,
  resourceVersion?: string,
): ApiObject {
  const { name } = object.metadata;
  if (!name) throw badRequest("metadata.name is required to create an object");
  if (stored) throw alreadyExists(KINDS[kind], name);
  return {
    apiVersion: KINDS[kind].apiVersion,
    kind,
    metadata: orderedMetadata({
      ...object.metadata,
      ...identity,
      resourceVersion,
      generation: 1,
      // A new object is not terminating, whatever the request says.
      deletionTimestamp: undefined,
      deletionGracePeriodSeconds: undefined,
    }),
    spec: object.spec,
    ...(object.status && { status: object.status }),
  };
}

/**
 * The object an update stores: 404 when it went, 409 on a stale resourceVersion. The server-owned metadata
 * is kept, the generation goes one up when the spec changes, the status stays as stored, a
 * `deletionTimestamp` is never cleared and a grace period only shortened.
 */
export const updatedObject = update((kind, stored, object, resourceVersion) => {
  const { uid, creationTimestamp, generation = 1, deletionTimestamp } = stored.metadata;
  return {
    apiVersion: stored.apiVersion,
    kind,
    metadata: orderedMetadata({
      ...object.metadata,
      name: stored.metadata.name,
      uid,
      creationTimestamp,
      resourceVersion,
      generation: isDeepStrictEqual(stored.spec, object.spec) ? generation : generation + 1,
      deletionTimestamp: deletionTimestamp ?? object.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: shorterGrace(
        stored.metadata.deletionGracePeriodSeconds,
        object.metadata.deletionGracePeriodSeconds,
      ),
    }),
    spec: object.spec,
    ...(stored.status && { status: stored.status }),
  };
});

/**
 * The object a write to the status subresource stores (kube-apiserver's `statusStrategy.PrepareForUpdate`):
 * the stored object with the request's `status` (none when it has none) and `managedFields` (which record
 * the status write); spec, the rest of the metadata and the generation stay as stored. 404 when it went,
 * 409 on a stale resourceVersion.
 */
export const statusUpdatedObject = update((_kind, stored, object, resourceVersion) => {
  const { status: _stored, ...rest } = stored;
  const { managedFields: _managed, ...metadata } = stored.metadata;
  const { managedFields } = object.metadata;
  return {
    ...rest,
    metadata: orderedMetadata({
      ...metadata,
      resourceVersion,
      managedFields,
    }),
    ...(object.status && { status: object.status }),
  };
});

/** The object as its removal reports it: as stored, at the deletion's resourceVersion. */
export function removedObject(stored: ApiObject, resourceVersion?: string): ApiObject {
  if (resourceVersion === undefined) return stored;
  return { ...stored, metadata: { ...stored.metadata, resourceVersion } };
}

/** A terminating object's grace period can only be shortened (as in Kubernetes), never dropped. */
export function shorterGrace(stored: number | undefined, given: number | undefined): number | undefined {
  if (given === undefined) return stored;
  return stored === undefined ? given : Math.min(stored, given);
}

/** Only the fields of ObjectMeta, always in the same order (as Kubernetes serializes them). */
function orderedMetadata(fields: ObjectMeta): ObjectMeta {
  const { name, generateName, uid, resourceVersion, generation, creationTimestamp, deletionTimestamp } =
    fields;
  const { deletionGracePeriodSeconds, labels, annotations, ownerReferences, finalizers, managedFields } =
    fields;
  return withoutUndefined({
    name,
    generateName,
    uid,
    resourceVersion,
    generation,
    creationTimestamp,
    deletionTimestamp,
    deletionGracePeriodSeconds,
    labels,
    annotations,
    ownerReferences,
    finalizers: finalizers?.length ? finalizers : undefined,
    managedFields,
  });
}

/**
 * A write over the stored object: first its preconditions (checkUpdatable), then `next` builds what is
 * stored, at the commit's resourceVersion or, for a dry run, the stored one.
 */
function update(
  next: (
    kind: KindName,
    stored: ApiObject,
    object: ApiObject,
    resourceVersion: string | undefined,
  ) => ApiObject,
): (kind: KindName, stored: ApiObject | undefined, object: ApiObject, resourceVersion?: string) => ApiObject {
  return (kind, stored, object, resourceVersion) => {
    checkUpdatable(kind, stored, object);
    return next(kind, stored, object, resourceVersion ?? stored.metadata.resourceVersion);
  };
}

/** An update's preconditions: 404 when the object went, 409 when it changed since the version written. */
function checkUpdatable(
  kind: KindName,
  stored: ApiObject | undefined,
  object: ApiObject,
): asserts stored is ApiObject {
  const { name } = object.metadata;
  if (!stored) throw notFound(KINDS[kind], name);
  if (object.metadata.resourceVersion !== stored.metadata.resourceVersion) throw conflict(KINDS[kind], name);
}
