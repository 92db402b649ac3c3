// Kubernetes conditions: a type, a status, a machine reason and a message for people. The transition time
// moves only when the status does, so a controller that says the same thing again changes nothing.

import type { Condition as ApiCondition } from "../../sdk/client/types";

export type { ConditionStatus } from "../../sdk/client/types";

/** The API's condition shape; the controller always records the generation it observed. */
export type Condition = ApiCondition & { observedGeneration: number };

/** What a sync decides; the transition time and generation are filled in by `nextConditions`. */
export type ConditionState = Pick<Condition, "type" | "status" | "reason" | "message">;

function isCondition(value: unknown): value is Condition {
  return typeof value === "object" && value !== null && typeof (value as Condition).type === "string";
}

/**
 * The conditions to report, in the order given: each keeps the previous `lastTransitionTime` of its type
 * while its status is unchanged, and gets `now` when the status changes or the type is new.
 */
export function nextConditions(
  previous: unknown,
  states: readonly ConditionState[],
  observedGeneration: number,
  now: string,
): Condition[] {
  const before = Array.isArray(previous) ? previous.filter(isCondition) : [];
  return states.map((state) => {
    const earlier = before.find((condition) => condition.type === state.type);
    const unchanged = earlier?.status === state.status && typeof earlier.lastTransitionTime === "string";
    return {
      ...state,
      lastTransitionTime: unchanged ? earlier.lastTransitionTime : now,
      observedGeneration,
    };
  });
}
