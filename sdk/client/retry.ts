import { backoff, type RetryPolicy, retryWait } from "../shared/retry";
import { SETTINGS } from "./settings";

/** Backoff tuning, and the clock and jitter source for tests (the shared policy of `sdk/shared/retry.ts`). */
export interface RetryOptions extends RetryPolicy {
  /**
   * A server this client has had answers from (below 500) that then refuses connections or answers
   * 502/503/504 is taken as restarting: such failures of a request safe to repeat are retried beyond
   * `maxRetries`, until the waits add up to this (0: never; `maxRetries` 0 turns it off too).
   */
  restartBudgetMs: number;
  /** The cap of each backoff while riding through a restart (jittered below it). */
  restartMaxDelayMs: number;
}

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
  // kube-apiserver restarted is ready after about 20 s, the local server after a few: 45 s covers both.
  restartBudgetMs: 45_000,
  restartMaxDelayMs: 2_000,
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
  | {
      type: "response";
      statusCode: number;
      retryAfter?: string | undefined;
      /**
       * A 500 of kube-apiserver saying etcd did not answer (`isEtcdUnavailable`): the write may or may not
       * have committed, as when the answer is lost.
       */
      etcdUnavailable?: boolean;
    }
  | {
      type: "transport";
      /** A refused connection or a failed DNS lookup may pass; a certificate error will not. */
      transient: boolean;
      mayHaveReachedServer: boolean;
    };

/** Answers that say "try again later" without the request having taken effect. */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/**
 * What kube-apiserver answers (500 InternalError) while etcd elects a leader or holds a proposal it cannot
 * commit: gone within an election (about a second), unlike a 500 of the server's own.
 */
const ETCD_UNAVAILABLE = /\betcdserver: (request timed out|leader changed|no leader)\b/;

/** Whether a 500's body is kube-apiserver's word for etcd not answering. */
export function isEtcdUnavailable(statusCode: number, text: string): boolean {
  return statusCode === 500 && ETCD_UNAVAILABLE.test(text);
}

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/**
 * The retry policy: how long to wait before repeating the request, or undefined to stop.
 * `retriesSoFar` counts the retries already made (0 after the first attempt).
 *
 * - A transient transport failure before the request reached the server (connection refused) is retried
 *   whatever the method: nothing happened yet.
 * - A lost answer (connection reset, timeout, etcd not answering behind kube-apiserver) and 429/502/503/504
 *   are retried only when sending the request twice has the effect of sending it once (see `isReplaySafe`).
 * - The server's `Retry-After` comes first; otherwise exponential backoff with full jitter, capped.
 * - Past `maxRetries`, a server that answered this client before and now fails as a restarting one does
 *   (`restarting`) gets more retries, up to `restartBudgetMs` of waits, when `restart` is given.
 */
export function retryDelay(
  request: RetryRequest,
  outcome: AttemptOutcome,
  retriesSoFar: number,
  options: RetryOptions,
  restart?: RestartState,
): number | undefined {
  const wait = countedDelay(request, outcome, retriesSoFar, options);
  if (wait !== undefined || restart === undefined || !restart.serverAnsweredBefore) return wait;
  if (options.maxRetries === 0 || restart.waitedMs >= options.restartBudgetMs) return undefined;
  if (!restarting(request, outcome)) return undefined;
  const step = backoff(retriesSoFar, { ...options, maxDelayMs: options.restartMaxDelayMs });
  return Math.max(1, Math.min(step, options.restartBudgetMs - restart.waitedMs));
}

/** What the transport knows of the server and of this request's retries so far. */
export interface RestartState {
  /** Whether this client had an answer below 500 from the server before (it was up). */
  serverAnsweredBefore: boolean;
  /** The waits before this request's retries, added up. */
  waitedMs: number;
}

/**
 * A failure a restarting server gives, for a request that may be sent again: a refused connection (never
 * sent), or a lost answer, etcd not answering or 502/503/504 when repeating the request is safe.
 */
function restarting(request: RetryRequest, outcome: AttemptOutcome): boolean {
  if (outcome.type === "transport")
    return outcome.transient && (!outcome.mayHaveReachedServer || isReplaySafe(request));
  return (
    (outcome.etcdUnavailable === true || [502, 503, 504].includes(outcome.statusCode)) &&
    isReplaySafe(request)
  );
}

/** The policy within `maxRetries`. */
function countedDelay(
  request: RetryRequest,
  outcome: AttemptOutcome,
  retriesSoFar: number,
  options: RetryOptions,
): number | undefined {
  if (outcome.type === "transport") {
    if (!outcome.transient || (outcome.mayHaveReachedServer && !isReplaySafe(request))) return undefined;
    return retryWait(retriesSoFar, undefined, options);
  }
  const retried = RETRIED_STATUSES.has(outcome.statusCode) || outcome.etcdUnavailable === true;
  if (!retried || !isReplaySafe(request)) return undefined;
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
