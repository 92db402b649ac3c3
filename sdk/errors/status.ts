import { isRecord } from "../shared/records";
import { redactValues } from "./redact";

/** One reason a request was refused, usually a field that failed validation. */
export interface StatusCause {
  reason?: string;
  message?: string;
  /** JSON path of the offending field from the object root, e.g. `spec.shutdown.minimumDrainTime`. */
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/**
 * The Kubernetes `Status` object: the body of every error response of the API, and of a successful delete.
 * The one declaration, for the server that sends it and the client that reads it.
 */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  /** Always empty in this API; the client's copy leaves it out. */
  metadata?: Record<string, never>;
  status: "Failure" | "Success";
  /** Absent in a `Success` Status. */
  message?: string;
  /** Absent in a `Success` Status; one of `REASONS` when the server sends it. */
  reason?: string;
  code: number;
  details?: StatusDetails;
}

/** A failure as the client keeps it (`toStatus`): the message and the reason are always there. */
export type FailureStatus = Status & { status: "Failure"; message: string; reason: string };

/**
 * A clean copy of a response body as a `Status`: only the documented fields, only values of the right type,
 * and every occurrence of a `redact` value replaced, so nothing the server echoed back can carry a secret.
 * A body that is not a Status (an HTML page from a gateway, plain text) is dropped, not quoted.
 */
export function toStatus(
  code: number,
  body: unknown,
  fallbackReason: string,
  redact: readonly string[] = [],
): FailureStatus {
  const scrub = (text: string) => redactValues(text, redact);
  const source = isStatusBody(body) ? body : {};
  const details = isRecord(source.details) ? cleanDetails(source.details, scrub) : undefined;
  return {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: scrub(stringOr(source.message, "")),
    reason: stringOr(source.reason, "") || fallbackReason,
    code,
    ...(details && { details }),
  };
}

function isStatusBody(body: unknown): body is Record<string, unknown> {
  return isRecord(body) && body.kind === "Status";
}

function cleanDetails(details: Record<string, unknown>, scrub: (text: string) => string): StatusDetails {
  const clean: StatusDetails = {};
  for (const key of ["name", "group", "kind", "uid"] as const) {
    if (typeof details[key] === "string") clean[key] = scrub(details[key]);
  }
  if (typeof details.retryAfterSeconds === "number") clean.retryAfterSeconds = details.retryAfterSeconds;
  if (Array.isArray(details.causes))
    clean.causes = details.causes.filter(isRecord).map((c) => cleanCause(c, scrub));
  return clean;
}

function cleanCause(cause: Record<string, unknown>, scrub: (text: string) => string): StatusCause {
  const clean: StatusCause = {};
  for (const key of ["reason", "message", "field"] as const) {
    if (typeof cause[key] === "string") clean[key] = scrub(cause[key]);
  }
  return clean;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}
