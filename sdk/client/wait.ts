// The one wait: a condition asked about every look a source gives at one object, until it holds, fails, or
// the deadline (or the caller's signal) ends it. `ResourceClient.waitFor` and the provider's readiness waits
// both run it over a `KindWatch` (kind-watch.ts).
import { WaitFailedError, WaitTimeoutError } from "../errors";

/**
 * What one look at an object says about the wait. A pending message says what is awaited now, as a status line
 * for the person running the step ("building main@1a2b3c4 (20s)"); a timeout quotes the last one.
 */
export type Observation =
  | { state: "pending"; message: string }
  /** `message`: what the wait ended with, for people ("minted api-3f9c1a2b3c; live api-3f9c1a2b3c"). */
  | { state: "ready"; message?: string }
  | { state: "failed"; reason: string; message: string };

/**
 * A readiness condition: observes the latest object (undefined once it is gone) and says whether the wait
 * is over. Which condition applies to which operation and kind is the provider's table
 * (`provider/await/conditions.ts`).
 */
export interface Condition<T> {
  /** What is awaited, for messages: "the controller to accept generation 3". */
  describe(): string;
  observe(object: T): Observation;
}

/** Where a wait gets its looks at an object. */
export interface ObjectSource<T> {
  /**
   * The object under `name` now, then again after each change, undefined while it is absent. May repeat an
   * unchanged object. Ends (or throws the abort reason) once `signal` aborts; the consumer aborts it when it
   * stops listening.
   */
  observe(name: string, signal: AbortSignal): AsyncIterable<T | undefined>;
}

export interface WaitSettings {
  timeoutMs: number;
  /** Ends the wait early, with its reason (not a timeout). */
  signal?: AbortSignal;
  /**
   * Hears what every look said, in order: what is awaited now, and how the wait ended (a host that can show
   * progress turns this into status lines; see `provider/wait-progress.ts`). It must not throw.
   */
  onObservation?: (observation: Observation) => void;
}

/**
 * Asks the condition about every look the source gives at `name`, and stops when it is ready (returning the
 * last object seen), failed (WaitFailedError), or out of time (its subclass WaitTimeoutError), both with the
 * last object seen. The deadline aborts the source, so a look in flight never outlasts it, and the loop
 * never sleeps itself: how the looks are timed is the source's business.
 */
export async function waitFor<T>(
  source: ObjectSource<T>,
  name: string,
  condition: Condition<T | undefined>,
  { timeoutMs, signal, onObservation }: WaitSettings,
): Promise<T | undefined> {
  const stop = new AbortController();
  const deadline = setTimeout(() => stop.abort(new Error("deadline")), timeoutMs);
  const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  let last: { object: T | undefined; observation: Observation } | undefined;
  try {
    for await (const object of source.observe(name, stopped)) {
      const observation = condition.observe(object);
      last = { object, observation };
      onObservation?.(observation);
      if (observation.state === "ready") return object;
      if (observation.state === "failed") {
        throw new WaitFailedError(observation.message, observation.reason, object);
      }
    }
    if (!stopped.aborted) throw new Error(`the look at ${name} ended before the wait did`);
  } catch (error) {
    if (!stopped.aborted) throw error;
  } finally {
    clearTimeout(deadline);
    stop.abort();
  }
  signal?.throwIfAborted();
  const seen =
    last?.observation.state === "pending" ? last.observation.message : "no answer from the API yet";
  throw new WaitTimeoutError(
    name,
    timeoutMs,
    last?.object,
    `timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${condition.describe()}: ${seen}`,
  );
}

/** A predicate as a condition: ready once it holds, pending (described as `what`) until then. */
export function holds<T>(
  predicate: (object: T | undefined) => boolean,
  what: string,
): Condition<T | undefined> {
  return {
    describe: () => what,
    observe: (object) =>
      predicate(object) ? { state: "ready" } : { state: "pending", message: "the predicate does not hold" },
  };
}
