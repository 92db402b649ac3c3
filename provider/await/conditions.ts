import type { Condition as ApiCondition } from "../../sdk/client";
import type { AnyObject as KnownObject } from "../kinds";
import type { Condition } from "./condition";

type AnyObject = KnownObject | undefined;

/** Controller reasons that no amount of waiting fixes: the provider fails with the controller's message. */
const FAILED_REASONS = new Set(["BundleResolutionFailed", "InvalidSource"]);

export function conditionOf(object: AnyObject, type: string): ApiCondition | undefined {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}

/** The controller has seen `generation` and settled its `Accepted` condition for it. */
export function serviceAccepted(generation: number): Condition<AnyObject> {
  return {
    describe: () => `the controller to accept generation ${generation}`,
    observe(object) {
      if (object === undefined) return { state: "failed", reason: "Deleted", message: "the object was deleted" };
      const observed = object.status?.observedGeneration ?? 0;
      if (observed < generation) {
        return { state: "pending", message: `the controller has observed generation ${observed}` };
      }
      const accepted = conditionOf(object, "Accepted");
      if (accepted === undefined || accepted.status === "Unknown") {
        return { state: "pending", message: accepted?.message || "the Accepted condition is not set yet" };
      }
      if (accepted.status === "False" && FAILED_REASONS.has(accepted.reason)) {
        return { state: "failed", reason: accepted.reason, message: accepted.message };
      }
      return { state: "ready" };
    },
  };
}

/** The object is gone from the API (Proxy deletion finishes after a grace period). */
export function deleted(): Condition<AnyObject> {
  return {
    describe: () => "the object to be deleted",
    observe: (object) =>
      object === undefined
        ? { state: "ready" }
        : { state: "pending", message: object.metadata.deletionTimestamp ? "deletion in progress" : "still present" },
  };
}
