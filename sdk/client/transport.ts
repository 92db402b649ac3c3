import type { Readable } from "node:stream";
import type { Dispatcher, Pool } from "undici";
import { ConnectionError, TimeoutError, type TransportError, UnexpectedResponseError } from "../errors";
import { type Sleep, withOverrides } from "../shared/retry";
import { type AttemptOutcome, isEtcdUnavailable, type RetryOptions, retryDelay } from "./retry";
import { type WarningHandler, warningsOf } from "./warnings";

export { realSleep, type Sleep } from "../shared/retry";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Where the API is and who the client is to it: what a kubeconfig or a pod's service account says. */
export interface ConnectionOptions {
  /** `https://api.example.dev` or `http://127.0.0.1:8080`; a path prefix is kept. No credentials in it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** PEM certificate(s) of the authority that signed the server's certificate. */
  ca?: string | Buffer;
  /** PEM client certificate for mutual TLS (an API server that authenticates clients by certificate), with `key`. */
  cert?: string | Buffer;
  /** PEM private key of `cert`. Never sent, never in a message. */
  key?: string | Buffer;
  /** Do not verify the server's certificate (kubeconfig's `insecure-skip-tls-verify`): for test clusters only. */
  insecureSkipTlsVerify?: boolean;
  /**
   * Sent as `User-Agent`. kube-apiserver names the field manager of a write that gives none after it, as it
   * does for client-go's (`kubectl`, a controller's binary name).
   */
  userAgent?: string;
}

export interface TransportOptions extends ConnectionOptions {
  /** Deadline of one attempt, from connecting to the last byte of the answer. */
  timeoutMs: number;
  retry: RetryOptions;
  sleep: Sleep;
}

export interface HttpRequest {
  method: HttpMethod;
  /** Path below the base URL, with its query string. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  contentType?: string;
  recognisesOwnCreate?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** Given the warnings of this request's answer. */
  onWarning?: WarningHandler;
}

export interface HttpResponse {
  statusCode: number;
  /** The parsed JSON answer; undefined when empty (or, for an error status, not JSON). */
  body: unknown;
  /** Sent again after an attempt that may have reached the server: a 409 may be the echo of our own write. */
  replayed: boolean;
}

/** A streamed answer: the body to read when the status is 200, the parsed answer otherwise. */
export type StreamResponse =
  | { open: true; body: Readable }
  | { open: false; statusCode: number; answer: unknown };

interface Failure {
  timedOut: boolean;
  code: string | undefined;
  transient: boolean;
  mayHaveReachedServer: boolean;
  cause: unknown;
}

interface Answer {
  statusCode: number;
  text: string;
  contentType: string | undefined;
  /** The `Warning` header line(s), unparsed. */
  warnings: string | string[] | undefined;
}

type Attempt = { outcome: AttemptOutcome } & ({ response: Answer } | { failure: Failure });

/** The request certainly never left: nothing to undo, so any request may be repeated. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/**
 * The connection broke after the request may have been sent; an answer cut short of its content-length is
 * one (a kube-apiserver killed behind a balancer mid-answer).
 */
const BROKEN = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
]);
const TIMEOUTS = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * JSON over one keep-alive connection pool to the base URL, with a deadline per attempt and retries
 * decided by `retryDelay`. Answers of any status are returned; only a request with no answer throws.
 */
export class Transport {
  private readonly pool: Pool;
  /** Whether the server answered (below 500) before: failures then may be a restart to ride through. */
  private serverAnswered = false;
  private readonly origin: string;
  private readonly basePath: string;

  constructor(private readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    // undici loads with the first transport, not with the package: a provider that only checks and diffs
    // (a preview) never pays for it.
    const { Pool: UndiciPool } = require("undici") as typeof import("undici");
    // The connector's options are node:tls's: the CA to trust, the client certificate and key to present.
    this.pool = new UndiciPool(this.origin, {
      connect: {
        timeout: options.timeoutMs,
        ...(options.ca !== undefined && { ca: options.ca }),
        ...(options.cert !== undefined && { cert: options.cert }),
        ...(options.key !== undefined && { key: options.key }),
        ...(options.insecureSkipTlsVerify === true && { rejectUnauthorized: false }),
      },
    });
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    const retry: RetryOptions = {
      ...this.options.retry,
      ...withOverrides(this.options.retry, { maxRetries: request.maxRetries }),
    };
    let replayed = false;
    let waitedMs = 0;
    for (let retriesSoFar = 0; ; retriesSoFar++) {
      request.signal?.throwIfAborted();
      const attempt = await this.attempt(request);
      const restart = { serverAnsweredBefore: this.serverAnswered, waitedMs };
      if (attempt.outcome.type === "response" && attempt.outcome.statusCode < 500) this.serverAnswered = true;
      const wait = retryDelay(request, attempt.outcome, retriesSoFar, retry, restart);
      if (wait !== undefined) waitedMs += wait;
      if (wait === undefined) {
        if ("failure" in attempt) throw this.transportError(request, attempt.failure, retriesSoFar + 1);
        // The answer the caller gets: an attempt that is retried says nothing about the request that counts.
        this.warn(request, attempt.response.warnings);
        return { ...this.parse(request, attempt.response), replayed };
      }
      replayed ||= attempt.outcome.type === "response" || attempt.outcome.mayHaveReachedServer;
      await this.options.sleep(wait, request.signal);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /**
   * A GET whose answer is a stream (a watch): one attempt, no retries and no deadline on the body, which
   * lasts as long as the server keeps it open; `signal` ends it. A 200 returns the body as it arrives;
   * another status returns the whole answer as `send` would. Resuming after a break is the caller's business.
   */
  async stream(request: HttpRequest): Promise<StreamResponse> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.pool.request({
        method: "GET",
        path: this.basePath + request.path,
        headers: this.headers(request),
        ...(request.signal && { signal: request.signal }),
        headersTimeout: timeoutMs,
        bodyTimeout: 0,
      });
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      const failure = classify(error, false);
      if (!failure) throw error;
      throw this.transportError(request, failure, 1);
    }
    const statusCode = answer.statusCode;
    const warnings = answer.headers.warning;
    this.warn(request, warnings);
    if (statusCode === 200) return { open: true, body: answer.body };
    const text = await answer.body.text();
    const contentType = firstHeader(answer.headers["content-type"]);
    return {
      open: false,
      statusCode,
      answer: this.parse(request, { statusCode, text, contentType, warnings }).body,
    };
  }

  private async attempt(request: HttpRequest): Promise<Attempt> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    try {
      const answer = await this.pool.request({
        method: request.method,
        path: this.basePath + request.path,
        headers: this.headers(request),
        ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await answer.body.text();
      const statusCode = answer.statusCode;
      return {
        outcome: {
          type: "response",
          statusCode,
          retryAfter: firstHeader(answer.headers["retry-after"]),
          etcdUnavailable: isEtcdUnavailable(statusCode, text),
        },
        response: {
          statusCode,
          text,
          contentType: firstHeader(answer.headers["content-type"]),
          warnings: answer.headers.warning,
        },
      };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      const failure = classify(error, deadline.aborted);
      if (!failure) throw error;
      return { outcome: { type: "transport", ...failure }, failure };
    }
  }

  private headers(request: HttpRequest): Record<string, string> {
    return {
      accept: "application/json",
      ...(request.body !== undefined && { "content-type": request.contentType ?? "application/json" }),
      ...(this.options.token && { authorization: `Bearer ${this.options.token}` }),
      ...(this.options.userAgent !== undefined && { "user-agent": this.options.userAgent }),
    };
  }

  /** Hands the 299 warnings of an answer to the request's handler. */
  private warn(request: HttpRequest, header: string | string[] | undefined): void {
    if (header === undefined || request.onWarning === undefined) return;
    for (const warning of warningsOf(header)) {
      try {
        request.onWarning(warning);
      } catch {
        // The request succeeded or failed on its own: a handler's error must not change that (a create that
        // stored the object would look failed).
      }
    }
  }

  private parse(request: HttpRequest, response: Answer): Omit<HttpResponse, "replayed"> {
    const { statusCode, text, contentType } = response;
    if (text === "") return { statusCode, body: undefined };
    try {
      return { statusCode, body: JSON.parse(text) };
    } catch {
      // An error page from a gateway is still an error answer; success without JSON means a wrong peer.
      if (statusCode >= 400) return { statusCode, body: undefined };
      throw new UnexpectedResponseError(statusCode, {
        method: request.method,
        url: this.url(request),
        contentType,
      });
    }
  }

  private transportError(request: HttpRequest, failure: Failure, attempts: number): TransportError {
    const init = {
      method: request.method,
      url: this.url(request),
      mayHaveReachedServer: failure.mayHaveReachedServer,
      attempts,
      cause: failure.cause,
    };
    return failure.timedOut
      ? new TimeoutError(request.timeoutMs ?? this.options.timeoutMs, init)
      : new ConnectionError(failure.code, init);
  }

  /** For messages: origin and path only (the base URL holds no credentials; see createClient). */
  private url(request: HttpRequest): string {
    return this.origin + this.basePath + request.path.split("?")[0];
  }
}

/** A transport failure, or undefined for an error that is not one (a bug, a closed client). */
function classify(error: unknown, deadlinePassed: boolean): Failure | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  const known = typeof code === "string" ? code : undefined;
  const base = { code: known, cause: error };
  if (deadlinePassed || (known && TIMEOUTS.has(known))) {
    const mayHaveReachedServer = known !== "UND_ERR_CONNECT_TIMEOUT";
    return { ...base, timedOut: true, transient: true, mayHaveReachedServer };
  }
  if (!known) return undefined;
  if (NOT_SENT.has(known)) return { ...base, timedOut: false, transient: true, mayHaveReachedServer: false };
  if (BROKEN.has(known)) return { ...base, timedOut: false, transient: true, mayHaveReachedServer: true };
  // Other undici codes are misuse (invalid argument, closed client); other system codes (TLS) will not pass.
  if (known.startsWith("UND_ERR_")) return undefined;
  return { ...base, timedOut: false, transient: false, mayHaveReachedServer: false };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
