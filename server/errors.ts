import { ApiError as ClientApiError } from "../sdk/errors/api-error";
import { failureStatus, type Reason } from "../sdk/errors/reasons";
import type { StatusCause, StatusDetails } from "../sdk/errors/status";
import { KINDS, type KindName } from "../sdk/schema";

// The Status body, its builders and the reason -> code table are sdk/errors' (one definition for the server
// and the client); this module holds the server's throwable and the messages Kubernetes gives its errors.
export { failureStatus, type Reason, reasonForCode, successStatus } from "../sdk/errors/reasons";
export type { Status, StatusCause, StatusDetails } from "../sdk/errors/status";

/**
 * A failure a handler throws; the error handler answers with its `status`. It is the client's `ApiError`,
 * built from the Status the server sends, so `code`, `reason`, `causes` and `status` read the same on both
 * sides. Its message is that Status's message, the words the server sends, where the client's describes an
 * answer it received.
 */
export class ApiError extends ClientApiError {
  constructor(reason: Reason, message: string, details: StatusDetails = {}) {
    super(failureStatus(reason, message, details));
    this.message = message;
  }

  get details(): StatusDetails {
    return this.status.details ?? {};
  }
}

/** `proxies.core.example.dev`: how Kubernetes names a resource in messages. */
export function qualifiedResource(kind: KindName): string {
  return `${KINDS[kind].plural}.${KINDS[kind].group}`;
}

/** Details as Kubernetes fills them for errors about one object: the resource (plural), not the kind. */
export function resourceDetails(kind: KindName, name: string): StatusDetails {
  return { name, group: KINDS[kind].group, kind: KINDS[kind].plural };
}

export function notFound(kind: KindName, name: string): ApiError {
  return new ApiError(
    "NotFound",
    `${qualifiedResource(kind)} "${name}" not found`,
    resourceDetails(kind, name),
  );
}

export function alreadyExists(kind: KindName, name: string): ApiError {
  return new ApiError(
    "AlreadyExists",
    `${qualifiedResource(kind)} "${name}" already exists`,
    resourceDetails(kind, name),
  );
}

export function conflict(kind: KindName, name: string): ApiError {
  return new ApiError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(kind)} "${name}": the object has been modified; ` +
      "please apply your changes to the latest version and try again",
    resourceDetails(kind, name),
  );
}

/**
 * 422 Invalid with one cause per problem; each cause message already names its field. `name` is undefined
 * when the object has none yet (a create without one).
 */
export function invalid(kind: KindName, name: string | undefined, causes: StatusCause[]): ApiError {
  const summary = causes.map((cause) => cause.message).join("; ");
  const object =
    name === undefined ? `${kind}.${KINDS[kind].group}` : `${kind}.${KINDS[kind].group} "${name}"`;
  return new ApiError("Invalid", `${object} is invalid: ${summary}`, {
    ...(name !== undefined && { name }),
    group: KINDS[kind].group,
    kind,
    causes,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError("BadRequest", message);
}
