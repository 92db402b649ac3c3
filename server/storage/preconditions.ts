import type { ApiObject } from "../../sdk/client/types";
import type { ApiError } from "../../sdk/errors";
import { apiError, qualifiedResource, resourceDetails } from "../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../sdk/schema";

/** What a delete must find, as in Kubernetes' `DeleteOptions.preconditions`; each field is optional. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * Throws 409 Conflict, worded as the Kubernetes API server words it, when `object` does not satisfy a
 * precondition (uid first, then resourceVersion).
 */
export function checkPreconditions(kind: KindName, object: ApiObject, preconditions?: Preconditions): void {
  if (preconditions === undefined) return;
  const { uid, resourceVersion } = object.metadata;
  const name = object.metadata.name ?? "";
  if (preconditions.uid !== undefined && preconditions.uid !== uid) {
    throw preconditionFailed(kind, name, "UID", preconditions.uid, uid);
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== resourceVersion) {
    throw preconditionFailed(kind, name, "ResourceVersion", preconditions.resourceVersion, resourceVersion);
  }
}

/** `Operation cannot be fulfilled on services.compute.example.dev "x": Precondition failed: UID in precondition: a, UID in object meta: b` */
export function preconditionFailed(
  kind: KindName,
  name: string,
  field: "UID" | "ResourceVersion",
  expected: string,
  actual: string | undefined,
): ApiError {
  return apiError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(KINDS[kind])} "${name}": Precondition failed: ` +
      `${field} in precondition: ${expected}, ${field} in object meta: ${actual ?? ""}`,
    resourceDetails(KINDS[kind], name),
  );
}

/** kube-apiserver's words for an apply whose uid names no object: it does not create one. */
export function uidOfNoObject(kind: KindName, name: string, uid: string): ApiError {
  return apiError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(KINDS[kind])} "${name}": uid mismatch: the provided ` +
      `object specified uid ${uid}, and no existing object was found`,
    resourceDetails(KINDS[kind], name),
  );
}

/**
 * A delete's preconditions, checked (uid first) with kube-apiserver's words for a delete (its
 * `BeforeDelete`), which name the kind, not the resource: `Operation cannot be fulfilled on
 * Proxy.core.example.dev "x": the UID in the precondition (a) does not match the UID in record (b). The
 * object might have been deleted and then recreated`.
 */
export function checkDeletePreconditions(
  kind: KindName,
  object: ApiObject,
  preconditions?: Preconditions,
): void {
  const { uid, resourceVersion } = object.metadata;
  const name = object.metadata.name ?? "";
  const failed = (field: "UID" | "ResourceVersion", expected: string, actual = "", why: string) =>
    apiError(
      "Conflict",
      `Operation cannot be fulfilled on ${kind}.${KINDS[kind].group} "${name}": the ${field} in the ` +
        `precondition (${expected}) does not match the ${field} in record (${actual}). The object might ${why}`,
      { name, group: KINDS[kind].group, kind },
    );
  if (preconditions?.uid !== undefined && preconditions.uid !== uid)
    throw failed("UID", preconditions.uid, uid, "have been deleted and then recreated");
  if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== resourceVersion)
    throw failed("ResourceVersion", preconditions.resourceVersion, resourceVersion, "have been modified");
}
