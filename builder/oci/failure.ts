// The one error type of the resolver: a condition reason, a message for people, and whether a later
// attempt can succeed without the Service being changed.
import { redact } from "../../sdk/errors/redact";
import type { CONDITION_REASONS } from "../../sdk/schema/status";

/** The Accepted reasons a resolution fails with. */
export type FailureReason =
  | typeof CONDITION_REASONS.Accepted.BundleResolutionFailed
  | typeof CONDITION_REASONS.Accepted.InvalidSource
  | typeof CONDITION_REASONS.Accepted.CredentialsNotFound;

export class ResolutionFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "ResolutionFailure";
  }
}

const MAX_DETAIL_LENGTH = 300;

interface DistributionError {
  code?: unknown;
  message?: unknown;
}

function describeJson(json: unknown): string | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const body = json as Record<string, unknown>;
  // Registries: {"errors":[{"code","message","detail"}]}; token services: OAuth2 or Docker Hub shapes.
  if (Array.isArray(body.errors)) {
    const parts = (body.errors as DistributionError[]).flatMap((error) => {
      if (typeof error?.message !== "string") return [];
      return [typeof error.code === "string" ? `${error.code}: ${error.message}` : error.message];
    });
    if (parts.length > 0) return parts.join("; ");
  }
  for (const key of ["error_description", "details", "message", "error"]) {
    if (typeof body[key] === "string" && body[key] !== "") return body[key];
  }
  return undefined;
}

/**
 * What the server said in an error body, with secrets redacted and then shortened; undefined for an
 * empty body. Redaction comes first: a cut inside an echoed secret would leave a prefix that no later
 * redaction recognises as the secret.
 */
export function serverMessage(body: Buffer, secrets: Iterable<string>): string | undefined {
  const text = body.toString("utf8").trim();
  if (text === "") return undefined;
  let detail: string;
  try {
    detail = describeJson(JSON.parse(text)) ?? text;
  } catch {
    detail = text;
  }
  return shorten(redact(detail, secrets));
}

function shorten(text: string): string {
  return text.length > MAX_DETAIL_LENGTH ? `${text.slice(0, MAX_DETAIL_LENGTH)}...` : text;
}
