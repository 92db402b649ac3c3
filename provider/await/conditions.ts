import type { ObjectWithStatus } from "../../sdk/client/types";
import type { Condition, Observation } from "../../sdk/client/wait";
import { PROXY_DRAIN_FINALIZER } from "../../sdk/schema/finalizers";
import {
  type Condition as ApiCondition,
  BUILD_PHASES,
  type BuildStatus,
  CONDITION_TYPES,
  conditionOf,
  isTerminalFailure,
  READINESS_TYPES,
  type ServiceStatus,
} from "../../sdk/schema/status";
import { stalledByEgressOnly } from "../../sdk/schema/status-readiness";

type Observed = ObjectWithStatus | undefined;

/**
 * How long a failure the object already showed before the write is taken as still pending. A write that
 * leaves the generation as it was (a retry after a failed create, an adopt of an identical spec) makes the
 * controller sync again, but its status only changes once it has tried: give it that time.
 */
export const STALE_FAILURE_GRACE_MS = 5_000;

/**
 * The controller has seen the written generation and accepted it (`Accepted` True). A terminal failure
 * (`TERMINAL_REASONS` in the schema) of `Accepted`, of `LiveRevisionReady` for this generation, or of a git
 * source's `SourceReady` while nothing is accepted, ends the wait with the controller's message; any other
 * False is waited out.
 */
export function serviceAccepted(
  written: ObjectWithStatus,
  now: () => number = Date.now,
): Condition<Observed> {
  const generation = written.metadata.generation ?? 1;
  const graceUntil = now() + STALE_FAILURE_GRACE_MS;
  // Only a verdict on this very generation can be stale; after a spec change the controller judges anew.
  const isStale = (condition: ApiCondition) => {
    const before = conditionOf(written, condition.type);
    return (
      before?.observedGeneration === generation &&
      condition.reason === before.reason &&
      condition.lastTransitionTime === before.lastTransitionTime &&
      now() < graceUntil
    );
  };
  return {
    describe: () => `the controller to accept generation ${generation}`,
    observe(object) {
      if (object === undefined)
        return { state: "failed", reason: "Deleted", message: "the object was deleted" };
      const observed = object.status?.observedGeneration ?? 0;
      if (observed < generation) {
        return {
          state: "pending",
          message: `waiting for the controller to observe generation ${generation}`,
        };
      }
      const readiness = readinessVerdict(object, generation, isStale, now());
      if (readiness !== undefined) return readiness;
      // A server whose controller reports no readiness conditions (an older one): its concerns decide.
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
      if (accepted.status === "False") {
        // A repository that cannot be fetched builds nothing: say why now, not at the timeout.
        const source = conditionOf(object, CONDITION_TYPES.SourceReady);
        if (
          source !== undefined &&
          isTerminalFailure(source) &&
          (source.observedGeneration ?? 0) >= generation
        )
          return { state: "failed", reason: source.reason, message: source.message };
        return { state: "pending", message: buildProgress(object.status, now()) ?? accepted.message };
      }
      const live = conditionOf(object, CONDITION_TYPES.LiveRevisionReady);
      if (live !== undefined && isTerminalFailure(live) && (live.observedGeneration ?? 0) >= generation) {
        return { state: "failed", reason: live.reason, message: live.message };
      }
      // The revision this generation selects is live: a verdict of an earlier generation says nothing of it.
      // (The controller writes both conditions at once, so this costs no wait; a state, not a transition, so
      // a write that changes no spec, whose generation the controller has already judged, is ready at once.)
      if (
        live !== undefined &&
        (live.status !== "True" || (live.observedGeneration ?? generation) < generation)
      ) {
        return {
          state: "pending",
          message: live.message || `waiting for the revision of generation ${generation} to be live`,
        };
      }
      return { state: "ready", ...optional(settled(object.status)) };
    },
  };
}

/**
 * The verdict of the Service's `Ready` and `Stalled` conditions (status-readiness.ts in the schema) once they
 * are of this generation: Ready True is ready; Stalled True fails with its reason and message, unless only
 * the egress gateway is missing (not waited for: it shows as the `egressReady` output, API-SPEC rule 8) or
 * it is the failure the object showed before the write (`isStale`); anything else is waited for, showing
 * what the controller is doing. Undefined when the object reports no Ready condition for this generation.
 */
function readinessVerdict(
  object: ObjectWithStatus,
  generation: number,
  isStale: (condition: ApiCondition) => boolean,
  at: number,
): Observation | undefined {
  const ready = conditionOf(object, READINESS_TYPES.Ready);
  if (ready === undefined || (ready.observedGeneration ?? 0) < generation) return undefined;
  if (ready.status === "True") return { state: "ready", ...optional(settled(object.status)) };
  const stalled = conditionOf(object, READINESS_TYPES.Stalled);
  if (stalled?.status === "True") {
    if (stalledByEgressOnly(stalled))
      return {
        state: "ready",
        message: [settled(object.status), stalled.message].filter(Boolean).join("; "),
      };
    if (isStale(stalled))
      return { state: "pending", message: `the controller is checking again: ${stalled.message}` };
    return { state: "failed", reason: stalled.reason, message: stalled.message };
  }
  const reconciling = conditionOf(object, READINESS_TYPES.Reconciling);
  return {
    state: "pending",
    message: buildProgress(object.status, at) ?? (reconciling?.message || ready.message),
  };
}

/**
 * A Proxy's `Ready` for the written generation (the controller holds its drain finalizer; status-readiness.ts
 * in the schema), so that the state keeps the status the controller writes once after the create. A Proxy
 * without the drain finalizer (a server that drains none) has nothing to wait for.
 */
export function proxyReady(written: ObjectWithStatus): Condition<Observed> {
  const generation = written.metadata.generation ?? 1;
  return {
    describe: () => `the controller to report generation ${generation} of the Proxy ${READINESS_TYPES.Ready}`,
    observe(object) {
      if (object === undefined)
        return { state: "failed", reason: "Deleted", message: "the object was deleted" };
      if (!(object.metadata.finalizers ?? []).includes(PROXY_DRAIN_FINALIZER)) return { state: "ready" };
      const ready = conditionOf(object, READINESS_TYPES.Ready);
      if (ready?.status === "True" && (ready.observedGeneration ?? 0) >= generation)
        return { state: "ready" };
      return {
        state: "pending",
        message: ready?.message || `waiting for the controller to observe generation ${generation}`,
      };
    },
  };
}

/** `branch@1a2b3c4`, or the branch alone while the fetch has not found the commit. */
function buildRef(build: BuildStatus): string {
  return build.commit ? `${build.branch}@${build.commit.slice(0, 7)}` : build.branch;
}

/** Whole seconds from `since` (an RFC 3339 time) to `now`; 0 for a time in the future or none. */
function secondsSince(since: string | undefined, now: number): number {
  const start = Date.parse(since ?? "");
  return Number.isNaN(start) ? 0 : Math.max(0, Math.floor((now - start) / 1000));
}

/** ", 2 ahead" or ", next in line" from `status.build.ahead`; nothing from a server that does not say. */
function queuePlace(ahead: number | undefined): string {
  if (ahead === undefined) return "";
  return ahead === 0 ? ", next in line" : `, ${ahead} ahead`;
}

/**
 * What a git source's build in progress is doing, from `status.build`: "build of main queued, 2 ahead", "building
 * main: fetching (3s)", "building main@1a2b3c4 (20s)". Undefined when no build runs.
 */
export function buildProgress(status: ServiceStatus | undefined, now: number): string | undefined {
  const build = status?.build;
  if (build === undefined) return undefined;
  if (build.phase === BUILD_PHASES.Pending)
    return `build of ${buildRef(build)} queued${queuePlace(build.ahead)}`;
  if (build.phase !== BUILD_PHASES.Running) return undefined;
  const elapsed = `(${secondsSince(build.startTime, now)}s)`;
  return build.commit
    ? `building ${buildRef(build)} ${elapsed}`
    : `building ${build.branch}: fetching ${elapsed}`;
}

/** What a Service settled on: "built main@1a2b3c4; minted api-3f9c1a2b3c; live api-3f9c1a2b3c". */
export function settled(status: ServiceStatus | undefined): string | undefined {
  const built = status?.lastBuild;
  const parts = [
    ...(built?.phase === BUILD_PHASES.Succeeded && built.commit ? [`built ${buildRef(built)}`] : []),
    ...(status?.latestRevision ? [`minted ${status.latestRevision}`] : []),
    ...(status?.liveRevision ? [`live ${status.liveRevision}`] : []),
  ];
  return parts.length > 0 ? parts.join("; ") : undefined;
}

const optional = (message: string | undefined) => (message === undefined ? {} : { message });

/** Kubernetes' propagation finalizer: the object goes after the objects it owns (its dependents). */
const FOREGROUND_FINALIZER = "foregroundDeletion";

/**
 * The object with this uid is gone from the API (a Proxy goes once it has drained). Another object under the
 * same name, created since, is not the one awaited. While it terminates, says why it is still there: its
 * dependents (a Foreground deletion), a Proxy's drain (the controller's finalizer), or other finalizers.
 */
export function deleted(uid: string, now: () => number = Date.now): Condition<Observed> {
  /** When the deletion started, once a look saw the object terminating. */
  let markedAt: string | undefined;
  let drained = false;
  return {
    describe: () => "the object to be deleted",
    observe(object) {
      if (object === undefined || object.metadata.uid !== uid) {
        if (markedAt === undefined) return { state: "ready" };
        const after = `${secondsSince(markedAt, now())}s`;
        return {
          state: "ready",
          message: drained ? `drained for ${after}; deleted` : `deleted after ${after}`,
        };
      }
      const { deletionTimestamp, finalizers = [] } = object.metadata;
      if (!deletionTimestamp) return { state: "pending", message: "still present" };
      markedAt = deletionTimestamp;
      if (finalizers.includes(FOREGROUND_FINALIZER)) {
        return {
          state: "pending",
          message: `waiting for its dependents to be deleted first (${FOREGROUND_FINALIZER})`,
        };
      }
      if (finalizers.includes(PROXY_DRAIN_FINALIZER)) {
        drained = true;
        const others = finalizers.filter((finalizer) => finalizer !== PROXY_DRAIN_FINALIZER);
        return {
          state: "pending",
          message: `draining for ${secondsSince(deletionTimestamp, now())}s (the controller removes ${PROXY_DRAIN_FINALIZER} once the drain is over)${others.length > 0 ? `; then waiting for ${others.join(", ")}` : ""}`,
        };
      }
      if (finalizers.length > 0) {
        return { state: "pending", message: `waiting for its finalizers: ${finalizers.join(", ")}` };
      }
      return { state: "pending", message: "terminating" };
    },
  };
}
