// The public surface of the errors, re-exported whole by `@exampledev/pulumi/client`.
export { ApiError, type ApiErrorContext } from "./api-error";
export { CreateUnconfirmedError } from "./create-unconfirmed-error";
export {
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
export { type ApiErrorOptions, apiErrorFromResponse, REASONS, type Reason } from "./reasons";
export type { FailureStatus, Status, StatusCause, StatusDetails } from "./status";
export { ConnectionError, TimeoutError, TransportError, UnexpectedResponseError } from "./transport-errors";
export { WaitFailedError, WaitTimeoutError } from "./wait-errors";
