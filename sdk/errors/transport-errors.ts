import { ExampledevError } from "./exampledev-error";

interface TransportErrorInit {
  method: string;
  /** Origin and path, never the query string nor credentials. */
  url: string;
  mayHaveReachedServer: boolean;
  attempts: number;
  cause?: unknown;
}

/** The request got no answer: the connection failed or timed out. */
export class TransportError extends ExampledevError {
  readonly method: string;
  readonly url: string;
  /** False when the request certainly was not sent (connection refused), so repeating it is always safe. */
  readonly mayHaveReachedServer: boolean;
  readonly attempts: number;

  constructor(problem: string, init: TransportErrorInit) {
    const tries = init.attempts > 1 ? ` (gave up after ${init.attempts} attempts)` : "";
    super(`${init.method} ${init.url} failed: ${problem}${tries}`, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
    this.mayHaveReachedServer = init.mayHaveReachedServer;
    this.attempts = init.attempts;
  }
}

export class ConnectionError extends TransportError {
  /** The system or undici error code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, ...). */
  readonly code: string | undefined;

  constructor(code: string | undefined, init: TransportErrorInit) {
    const detail = init.cause instanceof Error ? init.cause.message : "";
    super([detail || "connection error", code && `(${code})`].filter(Boolean).join(" "), init);
    this.code = code;
  }
}

export class TimeoutError extends TransportError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, init: TransportErrorInit) {
    super(`no answer within ${timeoutMs} ms`, init);
    this.timeoutMs = timeoutMs;
  }
}

/** The server answered, but not with what the API sends (a body that is not JSON): usually a wrong base URL. */
export class UnexpectedResponseError extends ExampledevError {
  readonly statusCode: number;

  constructor(statusCode: number, init: { method: string; url: string; contentType: string | undefined }) {
    super(
      `${init.method} ${init.url} answered ${statusCode} with a body that is not JSON (${init.contentType ?? "no content type"}): check the base URL`,
    );
    this.statusCode = statusCode;
  }
}
