import { ApiError, type ApiErrorContext } from "./api-error";
import { toStatus } from "./status";

export class BadRequestError extends ApiError {
  static override readonly phrase: string = "was rejected as a bad request";
}
export class UnauthorizedError extends ApiError {
  static override readonly phrase: string = "was refused: the API token is missing or invalid";
}
export class ForbiddenError extends ApiError {
  static override readonly phrase: string = "was refused: the API token does not allow it";
}
export class NotFoundError extends ApiError {
  static override readonly phrase: string = "was not found";
}
export class MethodNotAllowedError extends ApiError {
  static override readonly phrase: string = "was refused: the operation is not allowed";
}
/** 409 with reason `Conflict`: the object changed since it was read (stale `resourceVersion`). */
export class ConflictError extends ApiError {
  static override readonly phrase: string = "conflicts with the stored object";
}
/** 409 with reason `AlreadyExists`: a create named an object that exists. */
export class AlreadyExistsError extends ConflictError {
  static override readonly phrase: string = "already exists";
}
export class GoneError extends ApiError {
  static override readonly phrase: string = "has expired";
}
export class RequestEntityTooLargeError extends ApiError {
  static override readonly phrase: string = "was rejected: the request is too large";
}
export class UnsupportedMediaTypeError extends ApiError {
  static override readonly phrase: string = "was rejected: unsupported media type";
}
/** 422: the object failed validation; `causes` holds one entry per violation with its field path. */
export class InvalidError extends ApiError {
  static override readonly phrase: string = "was rejected";
}
export class TooManyRequestsError extends ApiError {
  static override readonly phrase: string = "was throttled: too many requests";
}
export class InternalError extends ApiError {
  static override readonly phrase: string = "failed on the server";
}
export class BadGatewayError extends ApiError {
  static override readonly phrase: string = "failed: bad gateway";
}
export class ServiceUnavailableError extends ApiError {
  static override readonly phrase: string = "failed: the server is unavailable";
}
export class GatewayTimeoutError extends ApiError {
  static override readonly phrase: string = "failed: the server timed out";
}

/** Each HTTP status: the reason used when the body is not a Status, and the error class. */
const BY_CODE: ReadonlyMap<number, { reason: string; type: typeof ApiError }> = new Map([
  [400, { reason: "BadRequest", type: BadRequestError }],
  [401, { reason: "Unauthorized", type: UnauthorizedError }],
  [403, { reason: "Forbidden", type: ForbiddenError }],
  [404, { reason: "NotFound", type: NotFoundError }],
  [405, { reason: "MethodNotAllowed", type: MethodNotAllowedError }],
  [409, { reason: "Conflict", type: ConflictError }],
  [410, { reason: "Gone", type: GoneError }],
  [413, { reason: "RequestEntityTooLarge", type: RequestEntityTooLargeError }],
  [415, { reason: "UnsupportedMediaType", type: UnsupportedMediaTypeError }],
  [422, { reason: "Invalid", type: InvalidError }],
  [429, { reason: "TooManyRequests", type: TooManyRequestsError }],
  [500, { reason: "InternalError", type: InternalError }],
  [502, { reason: "BadGateway", type: BadGatewayError }],
  [503, { reason: "ServiceUnavailable", type: ServiceUnavailableError }],
  [504, { reason: "Timeout", type: GatewayTimeoutError }],
]);

export interface ApiErrorOptions extends ApiErrorContext {
  /** Values that must not appear in the error (the token, secrets of the request); replaced wherever found. */
  redact?: readonly string[];
}

/**
 * The error for an HTTP error answer: the subclass for its status code (for 409, `AlreadyExistsError` when
 * the reason is `AlreadyExists`), built from the `Status` body. A body that is not a Status is never quoted.
 */
export function apiErrorFromResponse(
  statusCode: number,
  body: unknown,
  options: ApiErrorOptions = {},
): ApiError {
  const known = BY_CODE.get(statusCode);
  const status = toStatus(statusCode, body, known?.reason ?? "Unknown", options.redact);
  const context = { kind: options.kind, name: options.name };
  if (statusCode === 409 && status.reason === "AlreadyExists") return new AlreadyExistsError(status, context);
  return new (known?.type ?? ApiError)(status, context);
}
