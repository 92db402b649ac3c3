import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { KINDS, type KindName } from "../../sdk/schema";
import { alreadyExists, badRequest, conflict, notFound } from "../errors";
import { type ObjectStore, type StoredObject, timestamp } from "../storage";
import { orderedMetadata } from "../storage/store";

/**
 * `dryRun=All`: the request goes through everything a real one does (decoding, admission, defaults,
 * field ownership, preconditions) and the answer is what would be stored, but nothing is: no write, no
 * event (no watch, the controller or the garbage collector ever hears of it), no resourceVersion used, and
 * the uid of a would-be object is made up for the answer only.
 */

/** The `dryRun` query parameter: absent (or empty), or `All` (the one value Kubernetes defines). */
export function parseDryRun(value: string | string[] | undefined): boolean {
  if (value === undefined || value === "") return false;
  const values = [value].flat();
  if (values.every((entry) => entry === "All")) return true;
  const bad = values.find((entry) => entry !== "All");
  throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(bad)}: supported values: "All"`);
}

/** What `store.create` would return for `object`, without creating it (409 AlreadyExists as a create would). */
export function wouldCreate(kind: KindName, store: ObjectStore, object: StoredObject): StoredObject {
  const { name } = object.metadata;
  if (!name) throw badRequest("metadata.name is required to create an object");
  if (store.get(kind, name)) throw alreadyExists(kind, name);
  // No resourceVersion: nothing was written (as Kubernetes answers a dry-run create).
  return {
    apiVersion: KINDS[kind].apiVersion,
    kind,
    metadata: orderedMetadata({
      ...object.metadata,
      uid: randomUUID(),
      resourceVersion: undefined,
      generation: 1,
      creationTimestamp: timestamp(),
      deletionTimestamp: undefined,
    }),
    spec: object.spec,
    ...(object.status && { status: object.status }),
  };
}

/**
 * What `store.update` would return for `object`, without updating: the server-owned metadata kept, the
 * generation one up when the spec changes, the status as stored, and the stored resourceVersion (no new one
 * is used). The same checks as the update: 404 when the object went, 409 on a stale resourceVersion.
 */
export function wouldUpdate(kind: KindName, store: ObjectStore, object: StoredObject): StoredObject {
  const name = object.metadata.name;
  const existing = store.get(kind, name);
  if (!existing) throw notFound(kind, name);
  if (object.metadata.resourceVersion !== existing.metadata.resourceVersion) throw conflict(kind, name);
  const { uid, creationTimestamp, generation = 1, deletionTimestamp, resourceVersion } = existing.metadata;
  return {
    apiVersion: existing.apiVersion,
    kind,
    metadata: orderedMetadata({
      ...object.metadata,
      name,
      uid,
      creationTimestamp,
      resourceVersion,
      generation: isDeepStrictEqual(existing.spec, object.spec) ? generation : generation + 1,
      deletionTimestamp: deletionTimestamp ?? object.metadata.deletionTimestamp,
    }),
    spec: object.spec,
    ...(existing.status && { status: existing.status }),
  };
}
