// The public surface of the errors, re-exported whole by `@exampledev/pulumi/client`.
export { ApiError, type ApiErrorContext } from "./api-error";
export { CreateUnconfirmedError } from "./create-unconfirmed-error";
export { ExampledevError } from "./exampledev-error";
// Every class there is public: one per reason of REASONS.
export * from "./http-errors";
export { type ApiErrorOptions, apiErrorFromResponse, REASONS, type Reason } from "./reasons";
export type { FailureStatus, Status, StatusCause, StatusDetails } from "./status";
export { ConnectionError, TimeoutError, TransportError, UnexpectedResponseError } from "./transport-errors";
export { WaitFailedError, WaitTimeoutError } from "./wait-errors";
