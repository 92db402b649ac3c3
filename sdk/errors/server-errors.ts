import { InternalError } from "./http-errors";
import { failureStatus, REASONS, type Reason } from "./reasons";
import type { StatusCause, StatusDetails } from "./status";

// The errors a server throws, in the words Kubernetes gives them. Each is the class the client decodes from
// the answer (`apiErrorFromResponse`), built from the Status the server sends: one class per reason on both
// sides, matched by `instanceof`. Internal: the local server and the admission code import it by path.

/** The class of each reason, as `REASONS` pairs them. */
export type ErrorOf<R extends Reason> = InstanceType<(typeof REASONS)[R]["error"]>;

/** The error that answers with a `reason` Status carrying `message` and `details`. */
export function apiError<R extends Reason>(
  reason: R,
  message: string,
  details: StatusDetails = {},
): ErrorOf<R> {
  return new REASONS[reason].error(failureStatus(reason, message, details)) as ErrorOf<R>;
}

/** A resource as Kubernetes names it in errors: an entry of `KINDS`, or a core one (group "") such as Secrets. */
export interface Resource {
  kind: string;
  group: string;
  plural: string;
}

/** `proxies.core.example.dev`, `secrets` in the core group: how Kubernetes names a resource in messages. */
export function qualifiedResource({ plural, group }: Resource): string {
  return group === "" ? plural : `${plural}.${group}`;
}

/** Details as Kubernetes fills them for errors about one object: the resource (plural), not the kind. */
export function resourceDetails({ plural, group }: Resource, name: string): StatusDetails {
  // The core group is "", which Go's omitempty leaves out.
  return { name, ...(group !== "" && { group }), kind: plural };
}

export function notFound(resource: Resource, name: string): ErrorOf<"NotFound"> {
  return apiError(
    "NotFound",
    `${qualifiedResource(resource)} "${name}" not found`,
    resourceDetails(resource, name),
  );
}

export function alreadyExists(resource: Resource, name: string): ErrorOf<"AlreadyExists"> {
  return apiError(
    "AlreadyExists",
    `${qualifiedResource(resource)} "${name}" already exists`,
    resourceDetails(resource, name),
  );
}

/** The object changed since the writer read it. */
export function conflict(resource: Resource, name: string): ErrorOf<"Conflict"> {
  return apiError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": the object has been modified; ` +
      "please apply your changes to the latest version and try again",
    resourceDetails(resource, name),
  );
}

/**
 * 422 Invalid with one cause per problem; each cause message already names its field. `name` is undefined
 * when the object has none yet (a create without one).
 */
export function invalid(
  { kind, group }: Resource,
  name: string | undefined,
  causes: StatusCause[],
): ErrorOf<"Invalid"> {
  const summary = causes.map((cause) => cause.message).join("; ");
  const object = name === undefined ? `${kind}.${group}` : `${kind}.${group} "${name}"`;
  return apiError("Invalid", `${object} is invalid: ${summary}`, {
    ...(name !== undefined && { name }),
    group,
    kind,
    causes,
  });
}

export function badRequest(message: string): ErrorOf<"BadRequest"> {
  return apiError("BadRequest", message);
}

/**
 * A write refused because the store has no space left, as kube-apiserver answers when etcd raises its NOSPACE
 * alarm (500 InternalError, "etcdserver: mvcc: database space exceeded"): reads and watches go on. A class of
 * its own on the server's side (the client decodes an `InternalError`), so the server can tell it from a
 * failure that stops it.
 */
export class SpaceExceededError extends InternalError {}

/** `where`: the data directory; `cause`: what ran out (the disk, or the `--max-storage` quota). */
export function spaceExceeded(where: string, cause: string): SpaceExceededError {
  return new SpaceExceededError(
    failureStatus(
      "InternalError",
      `Internal error occurred: database space exceeded: the data directory ${where} is full (${cause}); ` +
        "writes are refused until space is freed (reads and watches go on)",
    ),
  );
}
