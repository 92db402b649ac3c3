import { ApiError } from "./api-error";

// One subclass per reason; `REASONS` (reasons.ts) pairs each with its reason and HTTP code.

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
