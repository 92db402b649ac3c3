import { KINDS, type KindName } from "../sdk/schema";

/**
 * Every failure the server reports, as the Kubernetes `Status` reason it carries and its HTTP code.
 * This table is the only place a reason is paired with a code.
 */
export const REASONS = {
  BadRequest: 400,
  Unauthorized: 401,
  NotFound: 404,
  MethodNotAllowed: 405,
  AlreadyExists: 409,
  Conflict: 409,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  InternalError: 500,
} as const;

export type Reason = keyof typeof REASONS;

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

/** The Kubernetes `Status` object: every error body, and the body of a successful delete. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Success" | "Failure";
  message?: string;
  reason?: Reason;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly reason: Reason,
    message: string,
    readonly details: StatusDetails = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  get code(): number {
    return REASONS[this.reason];
  }

  toStatus(): Status {
    return failureStatus(this.reason, this.message, this.details);
  }
}

export function failureStatus(reason: Reason, message: string, details: StatusDetails = {}): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    details,
    code: REASONS[reason],
  };
}

export function successStatus(details: StatusDetails): Status {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details, code: 200 };
}

/** The reason Kubernetes gives an error that only carries an HTTP code (framework errors). */
export function reasonForCode(code: number): Reason {
  const match = (Object.keys(REASONS) as Reason[]).find((reason) => REASONS[reason] === code);
  if (match) return match;
  return code >= 500 ? "InternalError" : "BadRequest";
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

/** 422 with one cause per problem; each cause message already names its field. */
/** 422 Invalid; `name` is undefined when the object has none yet (a create without one). */
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
