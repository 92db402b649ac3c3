// When and how long to wait before another attempt: server hints first (Retry-After), then
// exponential backoff with jitter, both capped.
import { setTimeout as delay } from "node:timers/promises";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const defaultSleep: Sleep = (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined);

const BASE_DELAY_MS = 250;
const MAX_DELAY_MS = 10_000;
const MAX_RETRY_AFTER_MS = 30_000;

/** 429 and 5xx may pass; every other status is an answer that asking again will not change. */
export const isTransientStatus = (status: number) => status === 429 || status >= 500;

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or malformed. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Delay before retry number `retry` (0 for the first retry). */
export function retryDelay(retry: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  // "Equal jitter": at least half the exponential step, so retries from many Services spread out.
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
