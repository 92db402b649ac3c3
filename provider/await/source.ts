/**
 * Where the wait loop gets its looks at an object: the shared watch of the object's kind (`watch-source.ts`),
 * which polls while no watch is live.
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
 * How often a waiter looks while no watch is live. Constant, never growing: what is awaited (the
 * controller's verdict, the end of a Proxy's drain) usually takes from milliseconds to about a
 * second, and a wait should end within one interval of it. One small GET per waiting resource per interval.
 */
export const POLL_INTERVAL_MS = 50;
