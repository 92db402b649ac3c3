import { ApiError, type ApiErrorContext } from "./api-error";
import {
  AlreadyExistsError,
  BadGatewayError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GatewayTimeoutError,
  GoneError,
  InternalError,
  InvalidError,
  MethodNotAllowedError,
  NotFoundError,
  RequestEntityTooLargeError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from "./http-errors";
import { type FailureStatus, type Status, type StatusDetails, toStatus } from "./status";

/**
 * Every `Status` reason of the API: its HTTP code and the client's error class. The only place a reason is
 * paired with a code: the server builds its answers from it, the client picks its errors with it. The first
 * reason of a code is that code's reason when only the code is known (409: `Conflict`).
 */
export const REASONS = {
  BadRequest: { code: 400, error: BadRequestError },
  Unauthorized: { code: 401, error: UnauthorizedError },
  Forbidden: { code: 403, error: ForbiddenError },
  NotFound: { code: 404, error: NotFoundError },
  MethodNotAllowed: { code: 405, error: MethodNotAllowedError },
  /** The object changed since it was read (stale `resourceVersion`, failed precondition). */
  Conflict: { code: 409, error: ConflictError },
  /** A create named an object that exists. */
  AlreadyExists: { code: 409, error: AlreadyExistsError },
  Gone: { code: 410, error: GoneError },
  /** A watch or list asked for a resourceVersion older than the server keeps (resume from a fresh list). */
  Expired: { code: 410, error: GoneError },
  RequestEntityTooLarge: { code: 413, error: RequestEntityTooLargeError },
  UnsupportedMediaType: { code: 415, error: UnsupportedMediaTypeError },
  /** The object failed validation; one cause per violation. */
  Invalid: { code: 422, error: InvalidError },
  TooManyRequests: { code: 429, error: TooManyRequestsError },
  InternalError: { code: 500, error: InternalError },
  BadGateway: { code: 502, error: BadGatewayError },
  ServiceUnavailable: { code: 503, error: ServiceUnavailableError },
  Timeout: { code: 504, error: GatewayTimeoutError },
} as const satisfies Record<string, { code: number; error: typeof ApiError }>;

export type Reason = keyof typeof REASONS;

const REASON_NAMES = Object.keys(REASONS) as Reason[];

export function isReason(value: unknown): value is Reason {
  return typeof value === "string" && Object.hasOwn(REASONS, value);
}

/** The HTTP code of a reason. */
export function codeOf(reason: Reason): number {
  return REASONS[reason].code;
}

/** The reason of an HTTP code when nothing else is known (the first of the table), or undefined. */
export function reasonOfCode(code: number): Reason | undefined {
  return REASON_NAMES.find((reason) => REASONS[reason].code === code);
}

/**
 * The reason Kubernetes gives an error that only carries an HTTP code (a framework error): the code's reason,
 * else `InternalError` for a 5xx and `BadRequest` for any other code.
 */
export function reasonForCode(code: number): Reason {
  return reasonOfCode(code) ?? (code >= 500 ? "InternalError" : "BadRequest");
}

/**
 * A `Failure` Status as the server sends it. Empty details are left out, as kube-apiserver leaves them out
 * (its errors without details, a 400 or a 410, set none and Go's `omitempty` drops the field); a 404, 409
 * or 422 names the object, its kind and its causes there.
 */
export function failureStatus(reason: Reason, message: string, details: StatusDetails = {}): FailureStatus {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(hasDetails(details) && { details }),
    code: codeOf(reason),
  };
}

/** Whether details say anything (a field set): kube-apiserver sends none for an error that has none. */
function hasDetails(details: StatusDetails): boolean {
  return Object.values(details).some((value) => value !== undefined);
}

/** A `Success` Status (the answer to a delete): no message, no reason. */
export function successStatus(details: StatusDetails): Status {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details, code: 200 };
}

export interface ApiErrorOptions extends ApiErrorContext {
  /**
   * Values that must not appear in the error (the token, secrets of the request); replaced wherever found,
   * also URL-, form- or JSON-encoded.
   */
  redact?: readonly string[];
}

/**
 * The error for an HTTP error answer, built from its `Status` body: the class of its reason when the reason
 * has that code (409 `AlreadyExists`: `AlreadyExistsError`), else the class of the code's reason, else
 * `ApiError`. A body that is not a Status is never quoted.
 */
export function apiErrorFromResponse(
  statusCode: number,
  body: unknown,
  options: ApiErrorOptions = {},
): ApiError {
  const status = toStatus(statusCode, body, reasonOfCode(statusCode) ?? "Unknown", options.redact);
  return new (errorTypeOf(status))(status, { kind: options.kind, name: options.name });
}

function errorTypeOf(status: FailureStatus): typeof ApiError {
  const stated = isReason(status.reason) ? REASONS[status.reason] : undefined;
  if (stated?.code === status.code) return stated.error;
  const byCode = reasonOfCode(status.code);
  return byCode === undefined ? ApiError : REASONS[byCode].error;
}
