// What a sync did to a Service, as Kubernetes Events (recorder.ts): read from the status before and after
// the sync's write, so every path that mints, promotes, pins, resolves, builds or spawns a preview is
// covered by one comparison and no step records an Event of its own.
import {
  BUILD_PHASES,
  type BuildStatus,
  CONDITION_REASONS,
  READINESS_REASONS,
  READINESS_TYPES,
  type ServiceStatus,
} from "../sdk/schema/status";
import type { EventType } from "./recorder";

/** The reasons of the Events the controller records. */
export const EVENT_REASONS = {
  RevisionMinted: "RevisionMinted",
  RevisionPromoted: "RevisionPromoted",
  RevisionPinned: "RevisionPinned",
  TagResolved: "TagResolved",
  BuildStarted: "BuildStarted",
  BuildSucceeded: "BuildSucceeded",
  BuildFailed: CONDITION_REASONS.Accepted.BuildFailed,
  PreviewCreated: "PreviewCreated",
  PreviewDeleted: "PreviewDeleted",
  ProxyDraining: READINESS_REASONS.Draining,
  ProxyDrained: "Drained",
} as const;

export interface ServiceEvent {
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

const ref = (build: BuildStatus) =>
  build.commit ? `${build.branch}@${build.commit.slice(0, 12)}` : build.branch;

/** The Events of a status change; `pinned` says whether spec.liveRevision selects the live revision. */
export function serviceEvents(
  before: ServiceStatus | undefined,
  after: ServiceStatus,
  pinned: boolean,
): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  const add = (type: EventType, reason: string, action: string, note: string) =>
    events.push({ type, reason, action, note });
  if (after.latestRevision && after.latestRevision !== before?.latestRevision)
    add("Normal", EVENT_REASONS.RevisionMinted, "Mint", `minted revision ${after.latestRevision}`);
  if (after.liveRevision && after.liveRevision !== before?.liveRevision) {
    if (pinned)
      add(
        "Normal",
        EVENT_REASONS.RevisionPinned,
        "Select",
        `revision ${after.liveRevision} is live: pinned by spec.liveRevision`,
      );
    else
      add(
        "Normal",
        EVENT_REASONS.RevisionPromoted,
        "Select",
        `revision ${after.liveRevision} is live: the latest`,
      );
  }
  const resolved = after.resolvedBundle;
  if (resolved && resolved.digest !== before?.resolvedBundle?.digest)
    add("Normal", EVENT_REASONS.TagResolved, "Resolve", `tag ${resolved.tag} resolved to ${resolved.digest}`);
  // A build starts when it leaves the queue (Pending) for Running; its commit is known by then or soon.
  if (after.build?.phase === BUILD_PHASES.Running && before?.build?.phase !== BUILD_PHASES.Running)
    add("Normal", EVENT_REASONS.BuildStarted, "Build", `build of ${ref(after.build)} started`);
  const last = after.lastBuild;
  const lastBefore = before?.lastBuild;
  if (last && (lastBefore?.completionTime !== last.completionTime || lastBefore?.commit !== last.commit)) {
    if (last.phase === BUILD_PHASES.Succeeded)
      add("Normal", EVENT_REASONS.BuildSucceeded, "Build", `built ${ref(last)}: ${last.digest ?? ""}`.trim());
    else if (last.phase === BUILD_PHASES.Failed)
      add(
        "Warning",
        EVENT_REASONS.BuildFailed,
        "Build",
        `build of ${ref(last)} failed: ${last.message ?? ""}`.trim(),
      );
  }
  const previewsBefore = new Set((before?.previews ?? []).map((preview) => preview.name));
  const previewsAfter = new Set((after.previews ?? []).map((preview) => preview.name));
  for (const name of previewsAfter)
    if (!previewsBefore.has(name))
      add("Normal", EVENT_REASONS.PreviewCreated, "Create", `preview Service ${name} created`);
  for (const name of previewsBefore)
    if (!previewsAfter.has(name))
      add("Normal", EVENT_REASONS.PreviewDeleted, "Delete", `preview Service ${name} collected`);
  // Stalled: a Warning with the concern's reason, once per transition (a build's failure is said above).
  const stalled = after.conditions?.find((condition) => condition.type === READINESS_TYPES.Stalled);
  const stalledBefore = before?.conditions?.find((condition) => condition.type === READINESS_TYPES.Stalled);
  if (
    stalled?.status === "True" &&
    stalled.reason !== EVENT_REASONS.BuildFailed &&
    (stalledBefore?.status !== "True" || stalledBefore.reason !== stalled.reason)
  )
    add("Warning", stalled.reason, "Reconcile", stalled.message);
  return events;
}
