// Kubernetes conditions: a type, a status, a machine reason and a message for people. The transition time
// moves only when the status does, so a controller that says the same thing again changes nothing.

import type { Condition as ApiCondition, ConditionType, ReasonOf } from "../sdk/schema/status";

export type { ConditionStatus } from "../sdk/schema/status";

/** The API's condition shape; the controller always records the generation it observed. */
export type Condition = ApiCondition & { observedGeneration: number };

type ConditionFields = Pick<Condition, "type" | "status" | "reason" | "message">;

/**
 * What a sync decides: one of the schema's condition types with one of the reasons of that type. The
 * transition time and generation are filled in by `nextConditions`.
 */
export type ConditionState = {
  [T in ConditionType]: ConditionFields & { type: T; reason: ReasonOf<T> };
}[ConditionType];

function isCondition(value: unknown): value is Condition {
  return typeof value === "object" && value !== null && typeof (value as Condition).type === "string";
}

/**
 * The conditions to report, in the order given: each keeps the previous `lastTransitionTime` of its type
 * while its status is unchanged, and gets `now` when the status changes or the type is new.
 */
export function nextConditions(
  previous: unknown,
  states: readonly ConditionFields[],
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
