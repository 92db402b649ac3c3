// One sync of one Service, in the shape of sample-controller's syncHandler: read the current state, create
// what is missing, delete what the history limit no longer keeps, bring previews in line, then compute
// status from what those writes left and write it only when it differs.
import { isDeepStrictEqual } from "node:util";
import type { ResolveOptions } from "../builder/oci";
import { AlreadyExistsError, ConflictError, NotFoundError } from "../sdk/client";
import type { ApiObject } from "../sdk/client/types";
import { applyDefaults, type ServiceSpec, type ServiceTemplateSpec } from "../sdk/schema";
import { CONDITION_REASONS, CONDITION_TYPES } from "../sdk/schema/status";
import { timestamp } from "../sdk/shared/time";
import { type BundleOutcome, BundleSources, type ResolvedTag } from "./bundle";
import type { Cluster } from "./cluster";
import type { ConditionState } from "./conditions";
import type { GitSources } from "./git-sources";
import { revisionsToPrune } from "./history";
import type { LaneWait } from "./lanes";
import type { ControllerLogger } from "./logger";
import type { ControllerMetrics } from "./metrics";
import type { EventRecorder } from "./recorder";
import { controllingService, desiredRevision, isControlledBy, type PinnedBundle } from "./revision";
import { EVENT_REASONS, serviceEvents } from "./service-events";
import {
  acceptedCondition,
  egressCondition,
  liveRevisionCondition,
  type PinnedRevision,
  serviceStatus,
} from "./status";

export interface ServiceSyncOptions {
  /** Reads from the caches, writes through the API. */
  cluster: Pick<Cluster, "services" | "revisions">;
  /** Egress gateway names that exist. */
  gateways: readonly string[];
  log: ControllerLogger;
  /** For tag resolution: timeouts, retries, and the signal that aborts it when the controller stops. */
  resolve?: ResolveOptions;
  /** The revisions a Service controls. Default: a scan of every revision (the controller passes an index). */
  ownedRevisions?: (service: ApiObject) => ApiObject[];
  /** The resolution cache, shared with the tag poll. Default: one of its own with `resolve`. */
  bundles?: BundleSources;
  /** Git sources' previews; without it no preview Service is spawned. */
  git?: GitSources;
  /** Records the Events of what a sync did (service-events.ts); without it, none. */
  recorder?: EventRecorder;
  /** Counts mints and builds (metrics.ts). */
  metrics?: ControllerMetrics;
}

export interface SyncOptions {
  /**
   * A retry of this Service is scheduled (its backoff runs): a failure that may pass, met for the Service
   * as it stands, is reported again instead of tried again before then. A sync that its own status write
   * caused must not ask a failing registry again ahead of the backoff.
   */
  retryPending?: boolean;
}

export interface SyncResult {
  /** The sync met a failure that may pass: run it again after a backoff. */
  retry: boolean;
  /**
   * The sync waits for a registry's answer (which queues the Service when it comes): sync again after this
   * long anyway, to report the time waited. Neither a success nor a failure: the backoff stays as it is.
   */
  requeueAfterMs?: number;
}

/** A wait shorter than this writes no status: the answer usually comes first and queues the Service. */
export const WAIT_REPORT_AFTER_MS = 1_000;
/** How often status says again how long a Service has waited for a registry. */
export const WAIT_REPORT_EVERY_MS = 5_000;

type Minting =
  | { ok: true; latest: string; condition: ConditionState }
  | { ok: false; condition: ConditionState; retryable: boolean };

/** The Accepted condition of a Service whose registry has not answered yet. */
export function awaitingRegistryCondition(wait: LaneWait, now = Date.now()): ConditionState {
  const waited = Math.max(0, Math.floor((now - wait.since) / 1000));
  const why =
    wait.state === "asking"
      ? "a request is out"
      : wait.state === "queued"
        ? `queued for a free slot of that host, ${wait.ahead ?? 0} ahead of it`
        : `the host failed ${wait.failures ?? 1} time${wait.failures === 1 ? "" : "s"} in a row and is backed off until ${new Date(wait.until ?? now).toISOString()}`;
  return acceptedCondition({
    reason: CONDITION_REASONS.Accepted.AwaitingRegistry,
    status: "Unknown",
    message: `waited ${waited} s for registry ${wait.host} to resolve ${wait.what} (${why}); the revision is minted once it answers`,
  });
}

/** The build phase each build Event says was reached (exampledev_builds_total). */
const BUILD_PHASE_OF: Readonly<Record<string, "Running" | "Succeeded" | "Failed">> = {
  [EVENT_REASONS.BuildStarted]: "Running",
  [EVENT_REASONS.BuildSucceeded]: "Succeeded",
  [EVENT_REASONS.BuildFailed]: "Failed",
};

export class ServiceSync {
  private readonly cluster: Pick<Cluster, "services" | "revisions">;
  private readonly gateways: ReadonlySet<string>;
  private readonly log: ControllerLogger;
  private readonly bundles: BundleSources;
  private readonly ownedRevisions: (service: ApiObject) => ApiObject[];
  private readonly git: GitSources | undefined;
  private readonly recorder: EventRecorder | undefined;
  private readonly metrics: ControllerMetrics | undefined;

  constructor(options: ServiceSyncOptions) {
    this.cluster = options.cluster;
    this.ownedRevisions =
      options.ownedRevisions ??
      ((service) => this.cluster.revisions.list().filter((revision) => isControlledBy(revision, service)));
    this.gateways = new Set(options.gateways);
    this.log = options.log;
    this.bundles = options.bundles ?? new BundleSources(options.resolve);
    this.git = options.git;
    this.recorder = options.recorder;
    this.metrics = options.metrics;
  }

  /**
   * Level-triggered and idempotent: whatever event queued the name, the sync reads the Service as it is
   * now, creates what is missing, deletes what the history limit drops and writes status only when it
   * differs from the stored one. Run again on an unchanged Service, it writes nothing.
   */
  async syncService(name: string, options: SyncOptions = {}): Promise<SyncResult> {
    const cached = this.cluster.services.get(name);
    if (!cached) {
      // Deleted: the server's garbage collector removes its revisions; nothing is minted for it.
      this.bundles.forget(name);
      return { retry: false };
    }
    // Being deleted (finalizers hold it, or a Foreground deletion waits for its revisions): nothing new is
    // minted for it, as Kubernetes controllers leave an object with a deletionTimestamp alone.
    if (cached.metadata.deletionTimestamp !== undefined) return { retry: false };
    let observed: ApiObject;
    try {
      // Registry credentials and the template's keys as the author wrote them: revisions copy them.
      observed = await this.cluster.services.withSecrets(cached);
    } catch (error) {
      // The Secret it named is gone: the Service changed since the cache saw it; look again after a backoff.
      if (error instanceof NotFoundError) return { retry: true };
      throw error;
    }
    const spec = applyDefaults("Service", observed.spec) as unknown as ServiceSpec;
    const outcome = await this.bundles.bundleFor(observed, spec.source, {
      settledDigest: this.settledDigest(observed),
      retryPending: options.retryPending ?? false,
    });
    // Resolution may have waited on a registry. A Service deleted meanwhile must get no revision (nothing
    // would collect it), and a newer write has queued its own sync: act only on the state just read.
    const service = this.cluster.services.get(name);
    if (!service || service.metadata.resourceVersion !== observed.metadata.resourceVersion)
      return { retry: false };
    // Waiting for a registry: nothing to decide until it answers (the answer queues the Service), unless the
    // wait is long enough to be worth saying so in status.
    const pending = "pending" in outcome ? outcome.pending : undefined;
    if (pending) {
      const waited = Date.now() - pending.since;
      if (waited < WAIT_REPORT_AFTER_MS)
        return { retry: false, requeueAfterMs: WAIT_REPORT_AFTER_MS - waited };
    }
    try {
      const result = await this.converge(service, spec, outcome);
      return pending ? { retry: false, requeueAfterMs: WAIT_REPORT_EVERY_MS } : result;
    } catch (error) {
      // A child's name is taken by an object the cache has not shown yet, perhaps not this Service's: its
      // event may queue another Service, so look again after a backoff. (Asked first: an AlreadyExistsError
      // is a ConflictError too.)
      if (error instanceof AlreadyExistsError) return { retry: true };
      // A write met a newer version of what it was decided from: the event of that version queues the
      // Service again, and its sync decides afresh.
      if (error instanceof ConflictError) return { retry: false };
      throw error;
    }
  }

  /** The decisions are made on the cached state; each write is assumed into the cache as answered. */
  private async converge(service: ApiObject, spec: ServiceSpec, outcome: BundleOutcome): Promise<SyncResult> {
    const name = service.metadata.name;
    const { builds } = outcome;
    const note = builds?.skipped
      ? `commit ${builds.skipped.slice(0, 12)} was not built: it changes no path matching spec.source.git.triggers.paths`
      : undefined;
    const minting: Minting = outcome.ok
      ? await this.mint(service, spec.template, outcome.bundle, note)
      : "pending" in outcome
        ? { ok: false, condition: awaitingRegistryCondition(outcome.pending), retryable: false }
        : { ok: false, condition: acceptedCondition(outcome), retryable: outcome.retryable };
    // While the current generation cannot be minted, the last minted revision stays the latest.
    const latest = minting.ok ? minting.latest : this.statusRevision(service)?.metadata.name;
    const pinned = spec.liveRevision || undefined;
    // The children first, in order (mint above, then prune, then previews); status is computed from them.
    await this.pruneHistory(service, spec.revisionHistoryLimit, [latest, pinned]);
    const previews = spec.source.git ? await this.git?.reconcilePreviews(service, spec) : undefined;

    const status = serviceStatus({
      generation: service.metadata.generation ?? 1,
      latestRevision: latest,
      liveRevision: pinned ?? latest,
      conditions: [
        minting.condition,
        egressCondition(spec.template.spec.egress, this.gateways),
        liveRevisionCondition(
          pinned === undefined ? undefined : { name: pinned, revision: this.pinnedRevision(service, pinned) },
          latest,
        ),
        ...(spec.source.git && this.git ? [this.git.sourceReady(spec.source.git)] : []),
      ],
      resolvedTag: outcome.ok ? outcome.resolvedTag : this.lastResolvedTag(service, spec),
      build: builds?.build,
      lastBuild: builds?.lastBuild,
      previews: previews?.previews,
      previewHeads: previews?.heads,
      closedPullRequests: previews?.closedPullRequests,
      previous: service.status,
      now: timestamp(),
    });
    // Compared whole, nothing ignored: a condition keeps its lastTransitionTime while its status stays, so
    // a sync that finds nothing new computes the stored status and writes nothing. That is why the sync
    // the controller's own status write causes ends there.
    if (!isDeepStrictEqual(status, service.status)) {
      const written = await this.cluster.services.replaceStatus({ ...service, status: { ...status } });
      this.bundles.carryForward(service, written);
      if (this.recorder || this.metrics)
        for (const event of serviceEvents(service.status, status, pinned !== undefined)) {
          this.recorder?.record(written, event.type, event.reason, event.action, event.note);
          const phase = BUILD_PHASE_OF[event.reason];
          if (phase) this.metrics?.build(phase);
        }
      if (!minting.ok) {
        const { reason, message } = minting.condition;
        // A wait is news only when it ends; a failure is news at once.
        if (reason === CONDITION_REASONS.Accepted.AwaitingRegistry)
          this.log.info({ service: name, reason, message }, "waiting for a registry");
        else this.log.warn({ service: name, reason, message }, "no revision minted");
      }
    }
    return { retry: !minting.ok && minting.retryable };
  }

  /** Creates the revision for the template and bundle, or finds the equal one minted before. */
  private async mint(
    service: ApiObject,
    template: ServiceTemplateSpec,
    bundle: PinnedBundle,
    note?: string,
  ): Promise<Minting> {
    const desired = desiredRevision(service, template, bundle);
    const { name } = desired.metadata;
    const existing = this.cluster.revisions.get(name);
    if (!existing) {
      await this.cluster.revisions.create(desired);
      this.metrics?.revisionMinted();
      this.log.info(
        { service: service.metadata.name, revision: name, digest: bundle.digest },
        "minted revision",
      );
    } else if (!isControlledBy(existing, service)) {
      const condition = acceptedCondition({
        reason: CONDITION_REASONS.Accepted.RevisionNameTaken,
        message: `the name ${name} of the revision to mint is taken by a ServiceRevision this Service does not control; delete that ServiceRevision`,
      });
      // Deleting it sends no event to this Service, so look again after a backoff.
      return { ok: false, condition, retryable: true };
    }
    return {
      ok: true,
      latest: name,
      condition: acceptedCondition({ minted: name, runs: `${bundle.repo}@${bundle.digest}`, note }),
    };
  }

  /** The revision the stored status calls latest, if it still exists and belongs to this Service. */
  private statusRevision(service: ApiObject): ApiObject | undefined {
    const latest = service.status?.latestRevision;
    const revision = typeof latest === "string" ? this.cluster.revisions.get(latest) : undefined;
    return revision && isControlledBy(revision, service) ? revision : undefined;
  }

  /** While a tag cannot be resolved, the status keeps saying what it last resolved to. */
  private lastResolvedTag(service: ApiObject, spec: ServiceSpec): ResolvedTag | undefined {
    if (!spec.source.oci || spec.source.oci.digest) return undefined;
    return service.status?.resolvedBundle as ResolvedTag | undefined;
  }

  /** The digest of the latest revision when the stored status says it was minted for this generation. */
  private settledDigest(service: ApiObject): string | undefined {
    const status = service.status;
    if (status?.observedGeneration !== service.metadata.generation) return undefined;
    const conditions = Array.isArray(status?.conditions) ? (status.conditions as ConditionState[]) : [];
    const accepted = conditions.find((condition) => condition?.type === CONDITION_TYPES.Accepted);
    if (accepted?.status !== "True") return undefined;
    const bundle = this.statusRevision(service)?.spec.bundle as { digest?: unknown } | undefined;
    return typeof bundle?.digest === "string" ? bundle.digest : undefined;
  }

  private async pruneHistory(service: ApiObject, limit: number, keep: (string | undefined)[]): Promise<void> {
    const protectedNames = new Set(keep.filter((name): name is string => name !== undefined));
    const owned = this.ownedRevisions(service);
    for (const revision of revisionsToPrune(owned, limit, protectedNames)) {
      const uid = owned.find((candidate) => candidate.metadata.name === revision)?.metadata.uid;
      await this.cluster.revisions.delete(revision, uid);
      this.log.info(
        { service: service.metadata.name, revision, revisionHistoryLimit: limit },
        "deleted revision beyond the history limit",
      );
    }
  }

  private pinnedRevision(service: ApiObject, name: string): PinnedRevision {
    const revision = this.cluster.revisions.get(name);
    if (!revision) return { found: "none" };
    if (isControlledBy(revision, service)) return { found: "own" };
    return { found: "foreign", owner: controllingService(revision)?.name };
  }
}
