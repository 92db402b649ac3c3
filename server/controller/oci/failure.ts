// The one error type of the resolver: a condition reason, a message for people, and whether a later
// attempt can succeed without the Service being changed.
export type FailureReason = "BundleResolutionFailed" | "InvalidSource";

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

/** What the server said in an error body, shortened; undefined for an empty body. */
export function serverMessage(body: Buffer): string | undefined {
  const text = body.toString("utf8").trim();
  if (text === "") return undefined;
  let detail: string;
  try {
    detail = describeJson(JSON.parse(text)) ?? text;
  } catch {
    detail = text;
  }
  return detail.length > MAX_DETAIL_LENGTH ? `${detail.slice(0, MAX_DETAIL_LENGTH)}...` : detail;
}

/**
 * Replaces every occurrence of a secret with `<redacted>`: a last guard for messages that quote what a
 * server answered, should a server echo what it was sent.
 */
export function redact(message: string, secrets: Iterable<string>): string {
  let result = message;
  for (const secret of secrets) {
    if (secret !== "") result = result.split(secret).join("<redacted>");
  }
  return result;
}
