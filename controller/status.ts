// What a Service's status says: the revisions selected and one condition per concern. Pure functions of
// what a sync observed, so they can be checked without an API server.
import type { ServiceEgress } from "../sdk/schema";
import {
  type BuildStatus,
  CONDITION_REASONS,
  CONDITION_TYPES,
  type PreviewHeadStatus,
  type PreviewStatus,
  type ReasonOf,
  type ResolvedBundleStatus,
  type ServiceStatus,
} from "../sdk/schema/status";
import { serviceReadiness } from "../sdk/schema/status-readiness";
import { type Condition, type ConditionState, nextConditions } from "./conditions";

const { Accepted, EgressReady, LiveRevisionReady } = CONDITION_REASONS;

/** The gateway a Service without `egress.gatewayRef` uses. */
export const DEFAULT_GATEWAY = "default";

const EGRESS_FIELD = "spec.template.spec.egress";

/** The schema's ServiceStatus as the controller writes it: generation and conditions always present. */
export type WrittenServiceStatus = ServiceStatus & { observedGeneration: number; conditions: Condition[] };

/** Why no revision is minted for the current generation: every Accepted reason but Minted. */
export type RejectionReason = Exclude<ReasonOf<typeof CONDITION_TYPES.Accepted>, typeof Accepted.Minted>;

export function acceptedCondition(
  outcome:
    | { minted: string; runs: string; note?: string }
    | { reason: RejectionReason; message: string; status?: "False" | "Unknown" },
): ConditionState {
  if ("minted" in outcome) {
    return {
      type: CONDITION_TYPES.Accepted,
      status: "True",
      reason: Accepted.Minted,
      message: `revision ${outcome.minted} runs ${outcome.runs}${outcome.note ? `; ${outcome.note}` : ""}`,
    };
  }
  return {
    type: CONDITION_TYPES.Accepted,
    status: outcome.status ?? "False",
    reason: outcome.reason,
    message: outcome.message,
  };
}

export function egressCondition(
  egress: ServiceEgress | undefined,
  gateways: ReadonlySet<string>,
): ConditionState {
  if (egress?.disabled) {
    return {
      type: CONDITION_TYPES.EgressReady,
      status: "False",
      reason: EgressReady.Disabled,
      message: `${EGRESS_FIELD}.disabled is true: all outbound traffic is denied`,
    };
  }
  const gateway = egress?.gatewayRef || DEFAULT_GATEWAY;
  const named = egress?.gatewayRef
    ? `${EGRESS_FIELD}.gatewayRef names egress gateway "${gateway}"`
    : `${EGRESS_FIELD}.gatewayRef is not set, so egress goes through the project "${DEFAULT_GATEWAY}" gateway`;
  if (gateways.has(gateway)) {
    return {
      type: CONDITION_TYPES.EgressReady,
      status: "True",
      reason: EgressReady.Applied,
      message: `${named}; outbound traffic goes through it`,
    };
  }
  const known =
    gateways.size > 0 ? `the known gateways are ${[...gateways].join(", ")}` : "no gateway is known";
  return {
    type: CONDITION_TYPES.EgressReady,
    status: "False",
    reason: EgressReady.GatewayNotFound,
    message: `${named}, which does not exist (${known}); set gatewayRef to a known gateway, or create "${gateway}"`,
  };
}

/** What the API holds under the name `spec.liveRevision` pins. */
export type PinnedRevision =
  | { found: "own" }
  | { found: "none" }
  | { found: "foreign"; owner: string | undefined };

export function liveRevisionCondition(
  pinned: { name: string; revision: PinnedRevision } | undefined,
  latest: string | undefined,
): ConditionState {
  const type = CONDITION_TYPES.LiveRevisionReady;
  if (!pinned) {
    if (latest === undefined) {
      return {
        type,
        status: "False",
        reason: LiveRevisionReady.NoRevision,
        message: "no revision is minted yet; see the Accepted condition",
      };
    }
    return {
      type,
      status: "True",
      reason: LiveRevisionReady.Live,
      message: `revision ${latest} is live: the latest, as spec.liveRevision is empty`,
    };
  }
  const fix = latest
    ? `pin a revision of this Service (the latest is ${latest}) or clear spec.liveRevision to follow the latest`
    : "pin a revision of this Service or clear spec.liveRevision to follow the latest";
  switch (pinned.revision.found) {
    case "own":
      return {
        type,
        status: "True",
        reason: LiveRevisionReady.Live,
        message: `revision ${pinned.name} is live: pinned by spec.liveRevision`,
      };
    case "none":
      return {
        type,
        status: "False",
        reason: LiveRevisionReady.RevisionNotFound,
        message: `spec.liveRevision names revision "${pinned.name}", which does not exist; ${fix}`,
      };
    case "foreign": {
      const owner = pinned.revision.owner ? `Service "${pinned.revision.owner}"` : "no Service";
      return {
        type,
        status: "False",
        reason: LiveRevisionReady.RevisionNotOwned,
        message: `spec.liveRevision names revision "${pinned.name}", which belongs to ${owner}, not this one; ${fix}`,
      };
    }
  }
}

export interface StatusInput {
  generation: number;
  latestRevision: string | undefined;
  liveRevision: string | undefined;
  /** A git source's build in progress and last finished build. */
  build?: BuildStatus;
  lastBuild?: BuildStatus;
  /** A git source's preview Services; left out when empty. */
  previews?: readonly PreviewStatus[];
  /** The idle clocks of the preview refs, and the closed pull requests; each left out when empty. */
  previewHeads?: readonly PreviewHeadStatus[];
  closedPullRequests?: readonly number[];
  conditions: readonly ConditionState[];
  /** The tag an OCI source resolved to (the last answer while a resolution fails); unset for digests. */
  resolvedTag?: { tag: string; digest: string } | undefined;
  /** The stored status, for the transition times of conditions whose status did not change. */
  previous: Record<string, unknown> | undefined;
  now: string;
}

export function serviceStatus(input: StatusInput): WrittenServiceStatus {
  const {
    generation,
    latestRevision,
    liveRevision,
    build,
    lastBuild,
    previews,
    previewHeads,
    closedPullRequests,
  } = input;
  return {
    observedGeneration: generation,
    ...(latestRevision !== undefined && { latestRevision }),
    ...(liveRevision !== undefined && { liveRevision }),
    ...(build !== undefined && { build }),
    ...(lastBuild !== undefined && { lastBuild }),
    ...(previews !== undefined && previews.length > 0 && { previews: [...previews] }),
    ...(previewHeads !== undefined && previewHeads.length > 0 && { previewHeads: [...previewHeads] }),
    ...(closedPullRequests !== undefined &&
      closedPullRequests.length > 0 && { closedPullRequests: [...closedPullRequests] }),
    // The concerns, then Ready, Reconciling and Stalled derived from them (the schema's rules).
    conditions: nextConditions(
      input.previous?.conditions,
      [...input.conditions, ...serviceReadiness(input.conditions, build)],
      generation,
      input.now,
    ),
    ...(input.resolvedTag && {
      resolvedBundle: resolvedBundleStatus(input.resolvedTag, input.previous?.resolvedBundle, input.now),
    }),
  };
}

/**
 * `resolvedAt` is when the tag was first seen at this digest: it stays while the digest does, so a poll
 * that finds the tag where it was writes nothing.
 */
function resolvedBundleStatus(
  resolved: { tag: string; digest: string },
  previous: unknown,
  now: string,
): ResolvedBundleStatus {
  const before = previous as Partial<ResolvedBundleStatus> | undefined;
  const same = before?.tag === resolved.tag && before.digest === resolved.digest;
  const resolvedAt = same && typeof before.resolvedAt === "string" ? before.resolvedAt : now;
  return { tag: resolved.tag, digest: resolved.digest, resolvedAt };
}
