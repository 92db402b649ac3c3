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
 * is over. Which condition applies to which operation and kind is a table in `conditions.ts`.
 */
export interface Condition<T> {
  /** What is awaited, for messages: "the controller to accept generation 3". */
  describe(): string;
  observe(object: T | undefined): Observation;
}
