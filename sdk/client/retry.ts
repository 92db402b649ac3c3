import { type RetryPolicy, retryWait } from "../shared/retry";
import { SETTINGS } from "./settings";

/** Backoff tuning, and the clock and jitter source for tests (the shared policy of `sdk/shared/retry.ts`). */
export type RetryOptions = RetryPolicy;

export const DEFAULT_RETRY: Readonly<RetryOptions> = {
  maxRetries: SETTINGS.maxRetries.default,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  jitter: "full",
  maxRetryAfterMs: 60_000,
  // A longer (or unreadable) hint falls back to backoff.
  longRetryAfter: "backoff",
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
  if (outcome.type === "transport") {
    if (!outcome.transient || (outcome.mayHaveReachedServer && !isReplaySafe(request))) return undefined;
    return retryWait(retriesSoFar, undefined, options);
  }
  if (!RETRIED_STATUSES.has(outcome.statusCode) || !isReplaySafe(request)) return undefined;
  return retryWait(retriesSoFar, outcome.retryAfter, options);
}

/**
 * GET, PUT and DELETE are idempotent. So is a JSON merge patch (RFC 7386): applying it to its own result
 * changes nothing, since it only sets or removes keys and replaces arrays whole; and so is a server-side
 * apply, which declares the manager's whole intent (a replayed create-apply meets its own object and is
 * refused by the uid it carries, which the caller checks like a POST's 409). A JSON patch is not (`add` to
 * `/-` appends twice), nor is a POST, unless the caller recognises its own create on replay.
 */
const REPLAY_SAFE_PATCHES: ReadonlySet<string> = new Set([
  "application/merge-patch+json",
  "application/apply-patch+yaml",
]);

function isReplaySafe(request: RetryRequest): boolean {
  const method = request.method.toUpperCase();
  if (IDEMPOTENT_METHODS.has(method)) return true;
  if (method === "PATCH") return REPLAY_SAFE_PATCHES.has(request.contentType ?? "");
  return method === "POST" && request.recognisesOwnCreate === true;
}
