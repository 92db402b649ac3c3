export { ApiError, type ApiErrorContext } from "./api-error";
export { CreateUnconfirmedError } from "./create-unconfirmed-error";
export {
  AlreadyExistsError,
  type ApiErrorOptions,
  apiErrorFromResponse,
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
export type { Status, StatusCause, StatusDetails } from "./status";
export { ConnectionError, TimeoutError, TransportError, UnexpectedResponseError } from "./transport-errors";
export { WaitTimeoutError } from "./wait-timeout-error";
