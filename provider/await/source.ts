import { realSleep, type Sleep } from "../../sdk/shared/retry";

/**
 * Where the wait loop gets its looks at an object. Polling is the one source today; a watch on the API
 * (an event per change) can replace it without touching the loop or the conditions.
 */
export interface ObjectSource<T> {
  /**
   * The object under `name` now, then again after each change, undefined while it is absent. A poll may
   * repeat an unchanged object; a watch would yield only changes. Ends (or throws the abort reason) once
   * `signal` aborts; the consumer aborts it when it stops listening.
   */
  observe(name: string, signal: AbortSignal): AsyncIterable<T | undefined>;
}

/**
 * How often the polling source looks. Constant, never growing: what is awaited (the controller's verdict,
 * the end of a Proxy's deletion grace) usually takes from milliseconds to about a second, and a wait
 * should end within one interval of it. One small GET per waiting resource per interval.
 */
export const POLL_INTERVAL_MS = 50;

export interface PollingOptions {
  intervalMs?: number;
  /** Replaces the real timer, for tests. */
  sleep?: Sleep;
}

/** A source that GETs the object at once and then every `intervalMs`. */
export function pollingSource<T>(
  fetch: (name: string, signal: AbortSignal) => Promise<T | undefined>,
  { intervalMs = POLL_INTERVAL_MS, sleep = realSleep }: PollingOptions = {},
): ObjectSource<T> {
  return {
    async *observe(name, signal) {
      for (;;) {
        signal.throwIfAborted();
        yield await fetch(name, signal);
        await sleep(intervalMs, signal);
      }
    },
  };
}
