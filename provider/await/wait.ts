import type { Condition } from "./condition";

export interface WaitSettings {
  timeoutMs: number;
  intervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class WaitFailedError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly lastSeen: unknown,
  ) {
    super(message);
    this.name = "WaitFailedError";
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The one wait loop: fetches the object, asks the condition, and stops when it is ready (returning the last
 * object seen), failed, or out of time (both throwing WaitFailedError with the last object seen).
 */
export async function waitFor<T>(
  fetch: () => Promise<T | undefined>,
  condition: Condition<T>,
  { timeoutMs, intervalMs = 250, sleep = defaultSleep }: WaitSettings,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  let delay = intervalMs;
  for (;;) {
    const object = await fetch();
    const observation = condition.observe(object);
    if (observation.state === "ready") return object;
    if (observation.state === "failed") {
      throw new WaitFailedError(observation.message, observation.reason, object);
    }
    if (Date.now() + delay > deadline) {
      throw new WaitFailedError(
        `timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${condition.describe()}: ${observation.message}`,
        "Timeout",
        object,
      );
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 2000);
  }
}
