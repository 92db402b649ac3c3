import { randomUUID } from "node:crypto";
import type { ApiObject } from "../../sdk/client/types";
import { badRequest } from "../../sdk/errors/server-errors";
import type { KindName } from "../../sdk/schema";
import { type TerminationOptions, terminationOf } from "../lifecycle";
import {
  createdObject,
  type ObjectStore,
  removedObject,
  statusUpdatedObject,
  timestamp,
  updatedObject,
} from "../storage";

/**
 * `dryRun=All`: the request goes through everything a real one does (decoding, admission, defaults,
 * field ownership, preconditions) and the answer is what would be stored, but nothing is: no write, no
 * event (no watch, the controller or the garbage collector ever hears of it), no resourceVersion used, and
 * the uid of a would-be object is made up for the answer only. What would be stored comes from the
 * storage layer's own functions (`storage/next-object.ts`), the ones its commits use.
 */

/** The `dryRun` query parameter: absent (or empty), or `All` (the one value Kubernetes defines). */
export function parseDryRun(value: string | string[] | undefined): boolean {
  if (value === undefined || value === "") return false;
  const values = [value].flat();
  if (values.every((entry) => entry === "All")) return true;
  const bad = values.find((entry) => entry !== "All");
  throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(bad)}: supported values: "All"`);
}

/** What `store.create` would return for `object`, without a resourceVersion (nothing was written). */
export function wouldCreate(kind: KindName, store: ObjectStore, object: ApiObject): ApiObject {
  const identity = { uid: randomUUID(), creationTimestamp: timestamp() };
  return createdObject(kind, store.get(kind, object.metadata.name), object, identity);
}

/** What `store.update` would return for `object`, at the stored resourceVersion (no new one is used). */
export function wouldUpdate(kind: KindName, store: ObjectStore, object: ApiObject): ApiObject {
  return updatedObject(kind, store.get(kind, object.metadata.name), object);
}

/** What `store.replaceStatus` would return for `object`, at the stored resourceVersion. */
export function wouldUpdateStatus(kind: KindName, store: ObjectStore, object: ApiObject): ApiObject {
  return statusUpdatedObject(kind, store.get(kind, object.metadata.name), object);
}

/**
 * What deleting `existing` would leave: the object as it would be removed (`gone`), or as it would be
 * marked terminating, as `lifecycle/terminate` would remove it or store the mark.
 */
export function wouldDelete(
  kind: KindName,
  store: ObjectStore,
  existing: ApiObject,
  options: TerminationOptions,
): { object: ApiObject; gone: boolean } {
  const termination = terminationOf(existing, options);
  if (termination.remove) return { object: removedObject(existing), gone: true };
  return { object: wouldUpdate(kind, store, termination.marked), gone: false };
}
