// The one retry policy: how long to wait before another attempt. The server's hint comes first
// (`Retry-After`), then exponential backoff with jitter, capped. Whether an outcome is worth retrying at all
// is the caller's question (the client's replay safety, the controller's transient statuses).
import { setTimeout as delay } from "node:timers/promises";

/** Waits `ms`, or rejects with the signal's reason once it aborts. Injectable so tests need not wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = async (ms, signal) => {
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
};

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Backoff before the first retry; doubles with each retry up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * `full`: uniform in [0, step), which spreads clients apart best. `equal`: uniform in [step/2, step), never
   * sooner than half the step.
   */
  jitter: "full" | "equal";
  /** Longest `Retry-After` honoured. */
  maxRetryAfterMs: number;
  /** A longer hint: `backoff` ignores it (as an unreadable one), `cap` waits `maxRetryAfterMs`. */
  longRetryAfter: "backoff" | "cap";
  /** In [0, 1); the jitter source, injectable for tests. */
  random: () => number;
  /** Clock for HTTP-date `Retry-After` values, injectable for tests. */
  now: () => number;
}

/** Per-call overrides: the fields given (and not undefined) replace the policy's. */
export function withOverrides(policy: RetryPolicy, overrides: Partial<RetryPolicy>): RetryPolicy {
  const given = Object.entries(overrides).filter(([, value]) => value !== undefined);
  return { ...policy, ...Object.fromEntries(given) };
}

/**
 * The wait before retry number `retriesSoFar + 1`, or undefined once `maxRetries` retries were made.
 * `retryAfter` is the answer's `Retry-After` header, when there was an answer.
 */
export function retryWait(
  retriesSoFar: number,
  retryAfter: string | undefined,
  policy: RetryPolicy,
): number | undefined {
  if (retriesSoFar >= policy.maxRetries) return undefined;
  return hintedWait(retryAfter, policy) ?? backoff(retriesSoFar, policy);
}

/**
 * The exponential step after `retriesSoFar` retries: `base * 2^n`, capped. `backoff` jitters below it; a
 * work queue's per-key delay is the step itself (client-go's failure rate limiter has no jitter either).
 */
export function backoffStep(
  retriesSoFar: number,
  { baseDelayMs, maxDelayMs }: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** retriesSoFar);
}

/** Exponential backoff: a jittered wait within [0, backoffStep). */
export function backoff(retriesSoFar: number, policy: RetryPolicy): number {
  const ceiling = backoffStep(retriesSoFar, policy);
  const lowest = policy.jitter === "equal" ? Math.floor(ceiling / 2) : 0;
  // random() < 1, so the product stays below the span even in floating point.
  return lowest + Math.floor(policy.random() * (ceiling - lowest));
}

/**
 * `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 10.2.3), in ms from `now` (0 for a date passed);
 * undefined when absent or unreadable. Every HTTP-date format names its month, which keeps `Date.parse` from
 * reading "-1" or "1.5" as a date.
 */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = HTTP_DATE_MONTH.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const HTTP_DATE_MONTH = /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/;

function hintedWait(header: string | undefined, policy: RetryPolicy): number | undefined {
  const ms = parseRetryAfter(header, policy.now());
  if (ms === undefined || ms <= policy.maxRetryAfterMs) return ms;
  return policy.longRetryAfter === "cap" ? policy.maxRetryAfterMs : undefined;
}
