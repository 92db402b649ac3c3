import type { ObjectWithStatus } from "../../sdk/client/types";
import {
  type Condition as ApiCondition,
  CONDITION_TYPES,
  conditionOf,
  isTerminalFailure,
} from "../../sdk/schema/status";
import type { Condition } from "./condition";

type Observed = ObjectWithStatus | undefined;

/**
 * How long a failure the object already showed before the write is taken as still pending. A write that
 * leaves the generation as it was (a retry after a failed create, an adopt of an identical spec) makes the
 * controller sync again, but its status only changes once it has tried: give it that time.
 */
export const STALE_FAILURE_GRACE_MS = 5_000;

/**
 * The controller has seen the written generation and accepted it (`Accepted` True). A terminal failure
 * (`TERMINAL_REASONS` in the schema) of `Accepted`, or of `LiveRevisionReady` for this generation, ends the
 * wait with the controller's message; any other False is waited out.
 */
export function serviceAccepted(
  written: ObjectWithStatus,
  now: () => number = Date.now,
): Condition<Observed> {
  const generation = written.metadata.generation ?? 1;
  const before = conditionOf(written, CONDITION_TYPES.Accepted);
  const graceUntil = now() + STALE_FAILURE_GRACE_MS;
  // Only a verdict on this very generation can be stale; after a spec change the controller judges anew.
  const isStale = (accepted: ApiCondition) =>
    before?.observedGeneration === generation &&
    accepted.reason === before.reason &&
    accepted.lastTransitionTime === before.lastTransitionTime &&
    now() < graceUntil;
  return {
    describe: () => `the controller to accept generation ${generation}`,
    observe(object) {
      if (object === undefined)
        return { state: "failed", reason: "Deleted", message: "the object was deleted" };
      const observed = object.status?.observedGeneration ?? 0;
      if (observed < generation) {
        return { state: "pending", message: `the controller has observed generation ${observed}` };
      }
      const accepted = conditionOf(object, CONDITION_TYPES.Accepted);
      if (accepted === undefined || accepted.status === "Unknown") {
        return {
          state: "pending",
          message: accepted?.message || `the ${CONDITION_TYPES.Accepted} condition is not set yet`,
        };
      }
      if (isTerminalFailure(accepted)) {
        if (isStale(accepted))
          return { state: "pending", message: `the controller is checking again: ${accepted.message}` };
        return { state: "failed", reason: accepted.reason, message: accepted.message };
      }
      // Any other False (a git source awaiting its build, a retry the controller has scheduled) may still
      // turn True: wait for it within the step's timeout, showing why it is not yet.
      if (accepted.status === "False") return { state: "pending", message: accepted.message };
      const live = conditionOf(object, CONDITION_TYPES.LiveRevisionReady);
      if (live !== undefined && isTerminalFailure(live) && (live.observedGeneration ?? 0) >= generation) {
        return { state: "failed", reason: live.reason, message: live.message };
      }
      return { state: "ready" };
    },
  };
}

/**
 * The object with this uid is gone from the API (Proxy deletion finishes after a grace period). Another object
 * under the same name, created since, is not the one awaited.
 */
export function deleted(uid: string): Condition<Observed> {
  return {
    describe: () => "the object to be deleted",
    observe: (object) =>
      object === undefined || object.metadata.uid !== uid
        ? { state: "ready" }
        : {
            state: "pending",
            message: object.metadata.deletionTimestamp ? "deletion in progress" : "still present",
          },
  };
}
