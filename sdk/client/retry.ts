export interface RetryOptions {
  maxRetries: number;
  /** Backoff before the first retry; doubles with each retry up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest `Retry-After` honoured; a longer (or unreadable) hint falls back to backoff. */
  maxRetryAfterMs: number;
  /** In [0, 1); the jitter source, injectable for tests. */
  random: () => number;
  /** Clock for HTTP-date `Retry-After` values, injectable for tests. */
  now: () => number;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  random: Math.random,
  now: Date.now,
};

/** What a request looks like to the policy. */
export interface RetryRequest {
  method: string;
  contentType?: string;
  /** A POST whose replay is safe because a 409 AlreadyExists is then checked against what was sent. */
  recognisesOwnCreate?: boolean;
}

/** How one attempt ended. */
export type AttemptOutcome =
  | { type: "response"; statusCode: number; retryAfter?: string | undefined }
  | {
      type: "transport";
      /** A refused connection or a failed DNS lookup may pass; a certificate error will not. */
      transient: boolean;
      mayHaveReachedServer: boolean;
    };

/** Answers that say "try again later" without the request having taken effect. */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/**
 * The retry policy: how long to wait before repeating the request, or undefined to stop.
 * `retriesSoFar` counts the retries already made (0 after the first attempt).
 *
 * - A transient transport failure before the request reached the server (connection refused) is retried
 *   whatever the method: nothing happened yet.
 * - A lost answer (connection reset, timeout) and 429/502/503/504 are retried only when sending the request
 *   twice has the effect of sending it once (see `isReplaySafe`).
 * - The server's `Retry-After` comes first; otherwise exponential backoff with full jitter, capped.
 */
export function retryDelay(
  request: RetryRequest,
  outcome: AttemptOutcome,
  retriesSoFar: number,
  options: RetryOptions,
): number | undefined {
  if (retriesSoFar >= options.maxRetries) return undefined;
  if (outcome.type === "transport") {
    if (!outcome.transient || (outcome.mayHaveReachedServer && !isReplaySafe(request))) return undefined;
    return backoff(retriesSoFar, options);
  }
  if (!RETRIED_STATUSES.has(outcome.statusCode) || !isReplaySafe(request)) return undefined;
  return retryAfterMs(outcome.retryAfter, options) ?? backoff(retriesSoFar, options);
}

/**
 * GET, PUT and DELETE are idempotent. So is a JSON merge patch (RFC 7386): applying it to its own result
 * changes nothing, since it only sets or removes keys and replaces arrays whole. A JSON patch is not
 * (`add` to `/-` appends twice), nor is a POST, unless the caller recognises its own create on replay.
 */
function isReplaySafe(request: RetryRequest): boolean {
  const method = request.method.toUpperCase();
  if (IDEMPOTENT_METHODS.has(method)) return true;
  if (method === "PATCH") return request.contentType === "application/merge-patch+json";
  return method === "POST" && request.recognisesOwnCreate === true;
}

/** Full jitter: uniform in [0, min(cap, base * 2^n)), which spreads clients apart best. */
function backoff(retriesSoFar: number, options: RetryOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retriesSoFar);
  return Math.floor(options.random() * ceiling);
}

/** `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 10.2.3), in milliseconds from now. */
function retryAfterMs(header: string | undefined, options: RetryOptions): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - options.now();
  if (Number.isNaN(ms) || ms > options.maxRetryAfterMs) return undefined;
  return Math.max(0, ms);
}
