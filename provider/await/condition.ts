/** What one look at an object says about the wait. */
export type Observation =
  | { state: "pending"; message: string }
  | { state: "ready" }
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
