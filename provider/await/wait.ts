import { WaitFailedError, WaitTimeoutError } from "../../sdk/errors";
import type { Condition, Observation } from "./condition";
import type { ObjectSource } from "./source";

export interface WaitSettings {
  timeoutMs: number;
  /**
   * Hears what every look said, in order: what is awaited now, and how the wait ended (a host that can show
   * progress turns this into status lines; see `provider/wait-progress.ts`). It must not throw.
   */
  onObservation?: (observation: Observation) => void;
}

/**
 * The one wait loop: asks the condition about every look the source gives at the object, and stops when it
 * is ready (returning the last object seen), failed (WaitFailedError), or out of time (its subclass WaitTimeoutError), both with the
 * last object seen). The deadline aborts the source, so a look in flight or a pause between polls never
 * outlasts it, and the loop never sleeps itself: how the looks are timed is the source's business.
 */
export async function waitFor<T>(
  source: ObjectSource<T>,
  name: string,
  condition: Condition<T | undefined>,
  { timeoutMs, onObservation }: WaitSettings,
): Promise<T | undefined> {
  const stop = new AbortController();
  const deadline = setTimeout(() => stop.abort(new Error("deadline")), timeoutMs);
  let last: { object: T | undefined; observation: Observation } | undefined;
  try {
    for await (const object of source.observe(name, stop.signal)) {
      const observation = condition.observe(object);
      last = { object, observation };
      onObservation?.(observation);
      if (observation.state === "ready") return object;
      if (observation.state === "failed") {
        throw new WaitFailedError(observation.message, observation.reason, object);
      }
    }
    if (!stop.signal.aborted) throw new Error(`the look at ${name} ended before the wait did`);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    clearTimeout(deadline);
    stop.abort();
  }
  const seen =
    last?.observation.state === "pending" ? last.observation.message : "no answer from the API yet";
  throw new WaitTimeoutError(
    name,
    timeoutMs,
    last?.object,
    `timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${condition.describe()}: ${seen}`,
  );
}
