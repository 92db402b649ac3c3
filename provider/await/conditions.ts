import type { Condition as ApiCondition } from "../../sdk/client";
import type { AnyObject as KnownObject } from "../kinds";
import type { Condition } from "./condition";

type AnyObject = KnownObject | undefined;

/** Controller reasons that no amount of waiting fixes: the provider fails with the controller's message. */
const FAILED_REASONS = new Set(["BundleResolutionFailed", "InvalidSource"]);
/** A pinned spec.liveRevision that cannot be served: a rollback to a typo must not look like success. */
const LIVE_FAILED_REASONS = new Set(["RevisionNotFound", "RevisionNotOwned"]);

export function conditionOf(object: AnyObject, type: string): ApiCondition | undefined {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}

/**
 * How long a failure the object already showed before the write is taken as still pending. A write that
 * leaves the generation as it was (a retry after a failed create, an adopt of an identical spec) makes the
 * controller sync again, but its status only changes once it has tried: give it that time.
 */
export const STALE_FAILURE_GRACE_MS = 5_000;

/** The controller has seen the written generation and settled its `Accepted` condition for it. */
export function serviceAccepted(written: KnownObject, now: () => number = Date.now): Condition<AnyObject> {
  const generation = written.metadata.generation ?? 1;
  const before = conditionOf(written, "Accepted");
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
      const accepted = conditionOf(object, "Accepted");
      if (accepted === undefined || accepted.status === "Unknown") {
        return { state: "pending", message: accepted?.message || "the Accepted condition is not set yet" };
      }
      if (accepted.status === "False" && FAILED_REASONS.has(accepted.reason)) {
        if (isStale(accepted))
          return { state: "pending", message: `the controller is checking again: ${accepted.message}` };
        return { state: "failed", reason: accepted.reason, message: accepted.message };
      }
      const live = conditionOf(object, "LiveRevisionReady");
      if (
        live?.status === "False" &&
        LIVE_FAILED_REASONS.has(live.reason) &&
        (live.observedGeneration ?? 0) >= generation
      ) {
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
export function deleted(uid: string): Condition<AnyObject> {
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
