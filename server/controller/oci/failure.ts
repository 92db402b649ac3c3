// The one error type of the resolver: a condition reason, a message for people, and whether a later
// attempt can succeed without the Service being changed.
import type { CONDITION_REASONS } from "../../../sdk/schema/status";

/** The Accepted reasons a resolution fails with. */
export type FailureReason =
  | typeof CONDITION_REASONS.Accepted.BundleResolutionFailed
  | typeof CONDITION_REASONS.Accepted.InvalidSource;

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

const REDACTED = "<redacted>";

/**
 * Credentials by their shape, whatever their value: what a server echoes may be a secret this
 * resolution does not know (or a part of one the server cut itself).
 */
const CREDENTIAL_SHAPES: readonly [RegExp, string][] = [
  // An echoed header, `Authorization: Bearer x`, `"authorization":["Basic x"]`: scheme and credential
  // (no word boundary asked: an echo may be glued to the text before it).
  [/(authorization["']?\s*[:=]\s*\[?\s*["']?)(?:[A-Za-z][\w-]*\s+)?[^\s"',;\]}]+/gi, `$1${REDACTED}`],
  // A credential after its scheme anywhere (token68, RFC 9110); `Bearer realm="..."` is a parameter.
  [/\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/\\]+=*(?![\w"=])/gi, `$1$2${REDACTED}`],
  // Token-service fields as a form sends them: `refresh_token=x`, `password=x`.
  [/\b((?:refresh_token|access_token|id_token|token|password|client_secret)=)[^\s&"',;]+/gi, `$1${REDACTED}`],
  // ...and as JSON: `"token": "x"`, `"passwordData":"x"`.
  [
    /("(?:refresh_token|access_token|id_token|token|password|passwordData|accessToken|refreshToken)"\s*:\s*")[^"]*/gi,
    `$1${REDACTED}`,
  ],
];

/**
 * Replaces every occurrence of a secret with `<redacted>` (also as it appears URL-, form- or
 * JSON-encoded), and then every credential-shaped fragment. For messages that quote what a server
 * answered, should a server echo what it was sent; apply it before any shortening.
 */
export function redact(message: string, secrets: Iterable<string>): string {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (secret === "") continue;
    values.add(secret);
    values.add(encodeURIComponent(secret));
    values.add(new URLSearchParams({ s: secret }).toString().slice(2));
    values.add(JSON.stringify(secret).slice(1, -1));
    values.add(JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"));
  }
  // Longest first, so a secret that contains another one is replaced whole.
  let result = message;
  for (const value of [...values].sort((a, b) => b.length - a.length)) {
    result = result.split(value).join(REDACTED);
  }
  for (const [shape, replacement] of CREDENTIAL_SHAPES) result = result.replace(shape, replacement);
  return result;
}
