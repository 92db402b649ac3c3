import { ExampledevError } from "./exampledev-error";
import type { FailureStatus, StatusCause } from "./status";

/** What the request was about, known to the caller even when the server's Status does not say. */
export interface ApiErrorContext {
  kind?: string;
  name?: string;
}

/**
 * An error answer of the API, carrying its `Status`. The message names the object, the HTTP status and the
 * server's causes with their field paths: `Service "api" was rejected (422 Invalid): spec.x: ...`.
 * Subclasses (one per reason of `REASONS`) only change the phrase; pick them with `apiErrorFromResponse`.
 */
export class ApiError extends ExampledevError {
  /** What happened to the subject, for the message: `Service "api" <phrase> (404 NotFound)`. */
  static readonly phrase: string = "failed";

  readonly status: FailureStatus;
  readonly kind: string | undefined;
  readonly objectName: string | undefined;

  constructor(status: FailureStatus, context: ApiErrorContext = {}) {
    const kind = context.kind ?? status.details?.kind;
    const objectName = context.name ?? status.details?.name;
    super(describe(status, subjectOf(kind, objectName), (new.target as typeof ApiError).phrase));
    this.status = status;
    this.kind = kind;
    this.objectName = objectName;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }

  /** The machine-readable reason (`NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, ...). */
  get reason(): string {
    return this.status.reason;
  }

  get causes(): readonly StatusCause[] {
    return this.status.details?.causes ?? [];
  }
}

function subjectOf(kind: string | undefined, name: string | undefined): string {
  if (kind && name) return `${kind} "${name}"`;
  if (name) return `"${name}"`;
  return kind ? `${kind} request` : "Request";
}

function describe(status: FailureStatus, subject: string, phrase: string): string {
  const head = `${subject} ${phrase} (${status.code} ${status.reason})`;
  const detail = formatCauses(status.details?.causes ?? []) || informativeMessage(status);
  return detail ? `${head}: ${detail}` : head;
}

function formatCauses(causes: readonly StatusCause[]): string {
  return causes.map(formatCause).filter(Boolean).join("; ");
}

/** `field: message`, unless the message already starts with its field (as this API's messages do). */
function formatCause({ field, message, reason }: StatusCause): string {
  const text = message ?? reason;
  if (field && text?.startsWith(`${field}:`)) return text;
  return [field, text].filter(Boolean).join(": ");
}

/** The server's message, unless it only repeats the reason ("Unauthorized"). */
function informativeMessage(status: FailureStatus): string {
  const normalise = (text: string) => text.replaceAll(" ", "").toLowerCase();
  return normalise(status.message) === normalise(status.reason) ? "" : status.message;
}
