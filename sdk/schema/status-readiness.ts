// What `Ready`, `Reconciling` and `Stalled` say, derived from the conditions the controller already reports
// for each concern, in one place: the controller writes what these functions return, the provider's await
// and the printer columns read the conditions, docs/operating.md describes these rules. Like the rest of
// the schema, this module imports nothing outside it.
import { PROXY_DRAIN_FINALIZER } from "./finalizers";
import {
  BUILD_PHASES,
  type BuildStatus,
  CONDITION_REASONS,
  CONDITION_TYPES,
  type Condition,
  type ConditionStatus,
  type ConditionType,
  isTerminalFailure,
  READINESS_REASONS,
  READINESS_TYPES,
  type ReadinessType,
} from "./status";

/** A condition as a sync decides it, before the transition time and the generation are filled in. */
export type ConcernState = Pick<Condition, "type" | "status" | "reason" | "message">;

/** One of the three readiness conditions, as a sync decides it. */
export interface ReadinessState {
  type: ReadinessType;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/**
 * Reasons that stall a Service beyond `TERMINAL_REASONS` (which end a provider's wait): an egress gateway
 * that does not exist. The controller knows the gateways from its own flags, so only a change of the
 * Service or of the server helps; the provider still does not wait on it (API-SPEC rule 8: a dangling
 * reference is not rejected, it shows as `EgressReady=False` and the `egressReady` output).
 */
export const STALLING_REASONS: { readonly [T in ConditionType]?: readonly string[] } = {
  EgressReady: [CONDITION_REASONS.EgressReady.GatewayNotFound],
};

/** Whether the concern is False for a reason that needs someone to act (terminal or `STALLING_REASONS`). */
export function isStalling(concern: Pick<Condition, "type" | "status" | "reason">): boolean {
  if (isTerminalFailure(concern)) return true;
  if (concern.status !== "False") return false;
  return (STALLING_REASONS[concern.type as ConditionType] ?? []).includes(concern.reason);
}

/** Whether a Service's Stalled condition blames only its egress: what the provider reports instead of failing. */
export function stalledByEgressOnly(stalled: Pick<Condition, "status" | "reason"> | undefined): boolean {
  return stalled?.status === "True" && (STALLING_REASONS.EgressReady ?? []).includes(stalled.reason);
}

const { Ready, Reconciling, Stalled } = READINESS_TYPES;

function triple(
  ready: Omit<ReadinessState, "type">,
  reconciling: Omit<ReadinessState, "type">,
  stalled: Omit<ReadinessState, "type">,
): ReadinessState[] {
  return [
    { type: Ready, ...ready },
    { type: Reconciling, ...reconciling },
    { type: Stalled, ...stalled },
  ];
}

const NOTHING_BLOCKS = {
  status: "False",
  reason: READINESS_REASONS.Progressing,
  message: "nothing blocks the controller",
} as const;

/** "a build of main@1a2b3c4 is running": a git source's build in progress, from `status.build`. */
function buildMessage(build: BuildStatus): string {
  const ref = build.commit ? `${build.branch}@${build.commit.slice(0, 7)}` : build.branch;
  const phase = build.phase === BUILD_PHASES.Pending ? "waiting for a build slot" : "running";
  return `a build of ${ref} is ${phase}`;
}

/**
 * A Service's readiness, from its concerns in the order the controller reports them and the build in
 * progress, if any:
 *
 * - Ready is True when the revision of the current generation is minted (`Accepted`, so digest-pinned), the
 *   revision selected to serve exists and is the Service's (`LiveRevisionReady`), and egress is in place
 *   (`EgressReady` True, or `Disabled` as the spec asks). Otherwise False, with the first concern that is not.
 * - Stalled is True when that concern failed for a reason no retry fixes (`isStalling`): a failed build, a
 *   tag that does not resolve, missing credentials, a pinned revision that is gone or not this Service's, an
 *   unknown egress gateway; and, while nothing is minted for the generation, a repository that cannot be
 *   fetched.
 * - Reconciling is True while the controller still works towards the spec without being blocked (a registry
 *   asked, a build awaited), and while a build of a new commit runs, even if the Service is Ready meanwhile.
 */
export function serviceReadiness(
  concerns: readonly ConcernState[],
  build?: BuildStatus | undefined,
): ReadinessState[] {
  const find = (type: ConditionType) => concerns.find((concern) => concern.type === type);
  const accepted = find(CONDITION_TYPES.Accepted);
  const live = find(CONDITION_TYPES.LiveRevisionReady);
  const egress = find(CONDITION_TYPES.EgressReady);
  const source = find(CONDITION_TYPES.SourceReady);
  const stalled = (concern: ConcernState) =>
    triple(
      { status: "False", reason: concern.reason, message: concern.message },
      {
        status: "False",
        reason: concern.reason,
        message: `the controller cannot go on without a change: ${concern.message}`,
      },
      { status: "True", reason: concern.reason, message: concern.message },
    );
  const reconciling = (concern: ConcernState) =>
    triple(
      { status: "False", reason: concern.reason, message: concern.message },
      {
        status: "True",
        reason: concern.reason,
        message: build ? `${buildMessage(build)}; ${concern.message}` : concern.message,
      },
      NOTHING_BLOCKS,
    );
  if (accepted === undefined || accepted.status !== "True") {
    const concern = accepted ?? {
      type: CONDITION_TYPES.Accepted,
      status: "Unknown",
      reason: READINESS_REASONS.Progressing,
      message: "the controller has not judged this generation yet",
    };
    if (isStalling(concern)) return stalled(concern);
    if (source !== undefined && isStalling(source)) return stalled(source);
    return reconciling(concern);
  }
  if (live !== undefined && live.status !== "True")
    return isStalling(live) ? stalled(live) : reconciling(live);
  if (egress !== undefined && isStalling(egress)) return stalled(egress);
  const message = live?.message ?? accepted.message;
  return triple(
    { status: "True", reason: READINESS_REASONS.Ready, message },
    build
      ? { status: "True", reason: READINESS_REASONS.Building, message: buildMessage(build) }
      : {
          status: "False",
          reason: READINESS_REASONS.Reconciled,
          message: "nothing is left to do for this generation",
        },
    build
      ? NOTHING_BLOCKS
      : { status: "False", reason: READINESS_REASONS.Reconciled, message: "not stalled" },
  );
}

/** What a held Proxy's Ready says. */
export const PROXY_READY_MESSAGE = `the controller holds ${PROXY_DRAIN_FINALIZER}: a deletion drains the Proxy`;

/**
 * A Proxy's readiness. The controller's part of a Proxy is its drain: Ready is True once the controller
 * has observed the generation and holds the drain finalizer (a deletion will drain); while a deleted Proxy
 * drains, Ready is False and Reconciling True (reason `Draining`, the message says until when). A Proxy
 * never stalls.
 */
export function proxyReadiness(state: "held" | { draining: string }): ReadinessState[] {
  if (state !== "held") {
    return triple(
      { status: "False", reason: READINESS_REASONS.Draining, message: state.draining },
      { status: "True", reason: READINESS_REASONS.Draining, message: state.draining },
      NOTHING_BLOCKS,
    );
  }
  return triple(
    { status: "True", reason: READINESS_REASONS.Ready, message: PROXY_READY_MESSAGE },
    { status: "False", reason: READINESS_REASONS.Reconciled, message: "nothing is left to do" },
    { status: "False", reason: READINESS_REASONS.Reconciled, message: "not stalled" },
  );
}
