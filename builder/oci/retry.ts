// The registry calls' parameters for the shared retry policy (sdk/shared/retry.ts), and which registry
// answers are worth another attempt.
import { type RetryPolicy, realSleep } from "../../sdk/shared/retry";

export type { Sleep } from "../../sdk/shared/retry";

export const defaultSleep = realSleep;

/**
 * Registry and token-service calls: backoff from 250 ms up to 10 s with "equal" jitter (at least half the
 * exponential step, so retries from many Services spread out without any retrying at once), and a
 * `Retry-After` capped at 30 s. `maxRetries` is the caller's (`RequestContext.retries`).
 */
export const OCI_RETRY: Readonly<RetryPolicy> = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  jitter: "equal",
  maxRetryAfterMs: 30_000,
  longRetryAfter: "cap",
  random: Math.random,
  now: Date.now,
};

/** 429 and 5xx may pass; every other status is an answer that asking again will not change. */
export const isTransientStatus = (status: number) => status === 429 || status >= 500;
