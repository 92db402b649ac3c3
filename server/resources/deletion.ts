import { KINDS, type KindName } from "../../sdk/schema";
import { badRequest, notFound, type Status, successStatus } from "../errors";
import { FINALIZED_KINDS } from "../lifecycle";
import { isRecord } from "../records";
import {
  checkPreconditions,
  type ObjectStore,
  type Preconditions,
  type StoredObject,
  timestamp,
} from "../storage";
import { type LabelSelector, matchesSelector } from "./selector";

export { preconditionFailed } from "../storage";

export type DeleteOutcome =
  | { code: 202; object: StoredObject; status?: undefined }
  | { code: 200; object: StoredObject; status: Status };

/** The body of a DELETE, as far as this server supports Kubernetes' `DeleteOptions`. */
export interface DeleteOptions {
  preconditions?: Preconditions;
}

/** DeleteOptions fields Kubernetes has and this server does not support yet, with what it does instead. */
const UNSUPPORTED_FIELDS: Readonly<Record<string, string>> = {
  propagationPolicy:
    "objects the deleted one owns are always deleted in the background (as with propagationPolicy Background)",
  gracePeriodSeconds: "a Proxy always terminates after the server's grace period; other kinds go at once",
  orphanDependents: "objects the deleted one owns are always deleted with it, never orphaned",
  dryRun: "every DELETE is carried out",
};

const API_VERSIONS: ReadonlySet<unknown> = new Set(["v1", "meta.k8s.io/v1"]);

/**
 * Reads the optional body of a DELETE: Kubernetes' `DeleteOptions` (`kind` and `apiVersion` may be left
 * out, as the Kubernetes API server defaults them). Only `preconditions` is supported; a field this
 * server does not support, an unknown field or a malformed value is 400, never ignored: ignoring
 * `dryRun` would delete for real, ignoring a misspelt `precondition` would delete unconditionally.
 * As in Kubernetes, a field set to null counts as left out.
 */
export function readDeleteOptions(body: unknown): DeleteOptions {
  if (body === undefined) return {};
  if (!isRecord(body)) {
    throw badRequest(
      'the body of a DELETE must be a DeleteOptions object, e.g. {"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"..."}}, or empty',
    );
  }
  const options: DeleteOptions = {};
  for (const [field, value] of Object.entries(body)) {
    if (value === null) continue;
    switch (field) {
      case "kind":
        if (value !== "DeleteOptions")
          throw badRequest(
            `kind: the body of a DELETE is a DeleteOptions, not ${describe(value)}; set kind to "DeleteOptions" or leave it out`,
          );
        break;
      case "apiVersion":
        if (!API_VERSIONS.has(value))
          throw badRequest(
            `apiVersion: DeleteOptions is served as v1 or meta.k8s.io/v1, not ${describe(value)}; set apiVersion to "v1" or leave it out`,
          );
        break;
      case "preconditions":
        options.preconditions = readPreconditions(value);
        break;
      default: {
        if (Object.hasOwn(UNSUPPORTED_FIELDS, field))
          throw badRequest(
            `DeleteOptions.${field} is not supported by this server yet (${UNSUPPORTED_FIELDS[field]}); leave it out`,
          );
        throw badRequest(
          `DeleteOptions.${field} is not a field of DeleteOptions; the supported fields are kind, apiVersion and preconditions`,
        );
      }
    }
  }
  return options;
}

function readPreconditions(value: unknown): Preconditions {
  if (!isRecord(value)) {
    throw badRequest(
      `DeleteOptions.preconditions must be an object such as {"uid":"...","resourceVersion":"..."}, not ${describe(value)}`,
    );
  }
  const preconditions: Preconditions = {};
  for (const [field, given] of Object.entries(value)) {
    if (given === null) continue;
    if (field !== "uid" && field !== "resourceVersion") {
      throw badRequest(
        `DeleteOptions.preconditions.${field} is not a precondition; the preconditions are uid and resourceVersion`,
      );
    }
    if (typeof given !== "string") {
      const what = field === "uid" ? "the metadata.uid" : "the metadata.resourceVersion";
      throw badRequest(
        `DeleteOptions.preconditions.${field} must be a string (${what} of the object to delete), not ${describe(given)}`,
      );
    }
    preconditions[field] = given;
  }
  return preconditions;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

/**
 * Deletes one object as Kubernetes does. A finalized kind (Proxy) is only marked with a
 * `deletionTimestamp` (202, the object in the body; again 202 while it terminates) and the lifecycle's
 * finalizer removes it; any other kind goes at once (200 and a Success Status). Owned objects follow
 * through the garbage collector. Preconditions are checked first (409 Conflict when one fails), before
 * a Proxy is marked too.
 */
export function deleteObject(
  store: ObjectStore,
  kind: KindName,
  name: string,
  options: DeleteOptions = {},
): DeleteOutcome {
  const existing = store.get(kind, name);
  if (!existing) throw notFound(kind, name);
  if (FINALIZED_KINDS.has(kind)) {
    checkPreconditions(kind, existing, options.preconditions);
    return { code: 202, object: mark(store, kind, existing) };
  }
  // The store checks the preconditions and removes in one step.
  const deleted = store.delete(kind, name, options.preconditions);
  if (!deleted) throw notFound(kind, name);
  const { group, plural } = KINDS[kind];
  return {
    code: 200,
    object: deleted,
    status: successStatus({ name, group, kind: plural, uid: deleted.metadata.uid }),
  };
}

/**
 * One chunk of a delete-collection: the objects selected earlier that are still there as the same
 * incarnation and still match the selector, removed in one commit (a finalized kind: each marked). The
 * answer lists them as the deletion left them; what changed or went meanwhile is passed over, as
 * Kubernetes passes over what it no longer finds.
 */
export function deleteSelected(
  store: ObjectStore,
  kind: KindName,
  selected: readonly StoredObject[],
  selector: LabelSelector,
): StoredObject[] {
  const current = selected.flatMap((object) => {
    const found = store.get(kind, object.metadata.name);
    const same = found?.metadata.uid === object.metadata.uid;
    return found && same && matchesSelector(selector, found.metadata.labels) ? [found] : [];
  });
  if (FINALIZED_KINDS.has(kind)) return current.map((object) => mark(store, kind, object));
  const targets = current.map(({ metadata: { name, uid } }) => ({ kind, name, uid }));
  return store.deleteMany(targets).filter((object) => object !== undefined);
}

/** Marks a finalized kind's object for deletion; one already terminating stays as it is. */
function mark(store: ObjectStore, kind: KindName, existing: StoredObject): StoredObject {
  if (existing.metadata.deletionTimestamp) return existing;
  return store.update(kind, {
    ...existing,
    metadata: { ...existing.metadata, deletionTimestamp: timestamp() },
  });
}
