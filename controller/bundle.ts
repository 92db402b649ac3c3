// Which digest-pinned bundle a Service's source stands for. A tag is resolved once per write of the
// Service: syncs caused by anything else (revision events, the controller's own status writes, a restart
// once the status is current) reuse the answer, so a moved tag is picked up when the Service is written
// or when the tag poll (`recheckTag`) finds it moved. A failure that may pass is the exception: it is
// asked about again, but not while its retry backs off. Registries are asked in the host lanes (lanes.ts),
// never in the sync: a sync whose answer is not in yet is told what it waits for, and the answer queues
// the Service again.
import { createHash } from "node:crypto";
import {
  DEFAULT_TAG,
  parseRepository,
  type ResolveOptions,
  type ResolveResult,
  resolveBundle,
} from "../builder/oci";
import type { ApiObject } from "../sdk/client/types";
import type { BundleRef, GitSource, ServiceSource } from "../sdk/schema";
import { type BuildStatus, CONDITION_REASONS } from "../sdk/schema/status";
import type { GitSources } from "./git-sources";
import { type HostLanes, LanesStopped, type LaneWait } from "./lanes";
import { canonicalJson } from "./naming";
import { type PinnedBundle, pinBundle } from "./revision";
import type { RejectionReason } from "./status";

/** The tag an OCI source names and the digest it resolved to (`status.resolvedBundle`). */
export interface ResolvedTag {
  tag: string;
  digest: string;
}

/** What status says about a git source's builds. */
export interface BuildReport {
  build?: BuildStatus;
  lastBuild?: BuildStatus;
  /** A commit `triggers.paths` skipped since the last build. */
  skipped?: string;
}

export type BundleOutcome = (
  | { ok: true; bundle: PinnedBundle; resolvedTag?: ResolvedTag }
  | { ok: false; reason: RejectionReason; message: string; retryable: boolean }
  /** The registry has not answered yet: the answer queues the Service again. */
  | { ok: false; pending: LaneWait }
) & { builds?: BuildReport };

const AWAITING_BUILD: BundleOutcome = {
  ok: false,
  reason: CONDITION_REASONS.Accepted.AwaitingBuild,
  message:
    "spec.source.git: this controller runs no git builds, so no revision is minted until a build produces a bundle digest; use spec.source.oci to deploy a pushed bundle",
  retryable: false,
};

const NO_SOURCE: BundleOutcome = {
  ok: false,
  reason: CONDITION_REASONS.Accepted.InvalidSource,
  message: "spec.source: set exactly one of oci (a pushed bundle) or git (a build)",
  retryable: false,
};

/** The controller's last resolution of a Service's tag, per incarnation (uid) of the Service name. */
interface Resolution {
  uid: string | undefined;
  /** The resourceVersion of the Service write the answer holds for. */
  resourceVersion: string | undefined;
  /** The last answer for this write; undefined while the first is asked. */
  result?: ResolveResult;
  /** A sync has read `result` (a failure that may pass is asked again only after that sync's backoff). */
  reported: boolean;
  /** The lane call under way for this write (its key). */
  asking?: string;
}

/** Where the answers go: the lanes calls run in, and who is told an answer is in. */
export interface BundleLanes {
  lanes: HostLanes;
  /** Queues a sync of the Service whose answer is in. */
  requeue(name: string): void;
}

export interface BundleOptions {
  /**
   * The digest the Service's stored status already stands for (its current generation was minted with
   * it); it answers for a tag the controller has not resolved since it started, so a restart alone does
   * not move a Service to whatever the tag points at now.
   */
  settledDigest?: string | undefined;
  /** A retry is scheduled: a failure that may pass, met for this very write, is not tried again before. */
  retryPending?: boolean;
}

export class BundleSources {
  private readonly resolutions = new Map<string, Resolution>();

  constructor(
    private readonly resolveOptions: ResolveOptions = {},
    /** Builds of git sources; without it a git source awaits a build for ever. */
    private readonly git?: GitSources,
    /** Without lanes, a tag is resolved in the sync itself (tests of one sync). */
    private readonly lanes?: BundleLanes,
  ) {}

  async bundleFor(
    service: ApiObject,
    source: ServiceSource,
    options: BundleOptions = {},
  ): Promise<BundleOutcome> {
    if (source.git) return this.built(service, source.git);
    const { oci } = source;
    if (!oci) return NO_SOURCE;
    if (oci.digest) {
      // No network: only a credentialsRef is looked up, so a missing one is reported for pinned bundles too.
      const pinned = await resolveBundle(oci, this.resolveOptions);
      return pinned.ok ? { ok: true, bundle: pinBundle(oci, pinned.digest) } : pinned;
    }
    const result = await this.resolveTag(service, oci, options);
    if (!result.ok) return result;
    const resolvedTag = { tag: oci.tag ?? DEFAULT_TAG, digest: result.digest };
    return { ok: true, bundle: pinBundle(oci, result.digest), resolvedTag };
  }

  /**
   * The tag poll: resolves the tag of a Service the controller has answered for again, and keeps the new
   * answer when it differs (a moved tag, or a tag that failed and resolves now). Returns whether it moved,
   * so the caller queues a sync; a failure keeps the last answer (the Service stays on its revision).
   * A write of the Service meanwhile wins: its own sync resolves afresh.
   */
  async recheckTag(service: ApiObject, oci: BundleRef): Promise<{ moved: boolean; failure?: string }> {
    const { name, uid, resourceVersion } = service.metadata;
    const known = this.resolutions.get(name);
    // Not answered for this write yet: the sync it queued resolves the tag anyway.
    if (!known || known.uid !== uid || known.resourceVersion !== resourceVersion) return { moved: false };
    const before = known.result;
    if (before === undefined || known.asking !== undefined) return { moved: false };
    let result: ResolveResult;
    try {
      result = await this.ask(oci);
    } catch (error) {
      if (error instanceof LanesStopped) return { moved: false };
      throw error;
    }
    if (this.resolutions.get(name) !== known || known.result !== before) return { moved: false };
    if (!result.ok) return { moved: false, failure: result.message };
    if (before.ok && before.digest === result.digest) return { moved: false };
    known.result = result;
    return { moved: true };
  }

  /** The controller turned `before` into `after` by writing status: no user wrote the Service. */
  carryForward(before: ApiObject, after: ApiObject): void {
    const known = this.resolutions.get(after.metadata.name);
    if (
      known &&
      known.uid === after.metadata.uid &&
      known.resourceVersion === before.metadata.resourceVersion
    )
      known.resourceVersion = after.metadata.resourceVersion;
  }

  forget(name: string): void {
    this.resolutions.delete(name);
    this.git?.forget(name);
  }

  /** A git source mints the digest its last build pushed to `build.output` (rule 2). */
  private built(service: ApiObject, git: GitSource): BundleOutcome {
    if (!this.git) return AWAITING_BUILD;
    const { outcome, build, lastBuild, skipped } = this.git.state(service, git);
    const builds: BuildReport = {
      ...(build && { build }),
      ...(lastBuild && { lastBuild }),
      ...(skipped && { skipped }),
    };
    return outcome.ok
      ? { ok: true, bundle: pinBundle(git.build.output, outcome.digest), builds }
      : { ...outcome, retryable: false, builds };
  }

  private async resolveTag(
    service: ApiObject,
    oci: BundleRef,
    options: BundleOptions,
  ): Promise<ResolveResult | { ok: false; pending: LaneWait }> {
    const { name, uid, resourceVersion } = service.metadata;
    const known = this.resolutions.get(name);
    const sameService = known !== undefined && known.uid === uid;
    const sameWrite = sameService && known.resourceVersion === resourceVersion;
    if (sameWrite && known.asking !== undefined) {
      // Asked again after a failure: the failure stands until the answer is in.
      const wait = this.lanes?.lanes.wait(known.asking);
      if (known.result) return known.result;
      if (wait) return { ok: false, pending: wait };
    }
    if (sameWrite && known.result) {
      const { result } = known;
      const fresh = !known.reported;
      known.reported = true;
      if (result.ok || !result.retryable || options.retryPending || fresh) return result;
    }
    // Recorded like a resolution, so the tag poll compares against what the Service runs.
    if (!sameService && options.settledDigest) {
      const result: ResolveResult = { ok: true, digest: options.settledDigest };
      this.resolutions.set(name, { uid, resourceVersion, result, reported: true });
      return result;
    }
    const lanes = this.lanes;
    const host = lanes ? hostOf(oci, this.resolveOptions) : undefined;
    if (!lanes || host === undefined) {
      // No network (a missing credentialsRef, a malformed repo), or no lanes: answered here.
      const result = await resolveBundle(oci, this.resolveOptions);
      this.resolutions.set(name, { uid, resourceVersion, result, reported: true });
      return result;
    }
    const entry: Resolution = {
      uid,
      resourceVersion,
      ...(sameWrite && known.result && { result: known.result }),
      reported: false,
    };
    const key = callKey(oci);
    entry.asking = key;
    this.resolutions.set(name, entry);
    this.ask(oci, host, key).then(
      (result) => {
        if (this.resolutions.get(name) !== entry) return;
        entry.asking = undefined;
        entry.result = result;
        entry.reported = false;
        lanes.requeue(name);
      },
      () => {
        // The controller stops.
        if (this.resolutions.get(name) === entry) entry.asking = undefined;
      },
    );
    const wait = lanes.lanes.wait(key);
    if (entry.result) return entry.result;
    return wait ? { ok: false, pending: wait } : { ok: false, pending: queuedNow(host, oci) };
  }

  /** The tag's digest, asked in the registry's lane (or here, without lanes). */
  private ask(oci: BundleRef, host = hostOf(oci, this.resolveOptions), key = callKey(oci)) {
    const lanes = this.lanes?.lanes;
    if (!lanes || host === undefined) return resolveBundle(oci, this.resolveOptions);
    const what = `tag "${oci.tag ?? DEFAULT_TAG}" of ${oci.repo}`;
    return lanes.run<ResolveResult>({
      host,
      key,
      what,
      work: (signal) => resolveBundle(oci, { ...this.resolveOptions, signal }),
      onDeadline: (deadlineMs) => ({
        ok: false,
        reason: CONDITION_REASONS.Accepted.BundleResolutionFailed,
        message: `cannot resolve ${what} (${this.resolveOptions.fieldPath ?? "spec.source.oci"}): ${host} gave no answer within the controller's deadline of ${deadlineMs / 1000} s`,
        retryable: true,
      }),
      hostFailed: (result) => !result.ok && result.retryable,
    });
  }
}

/** The registry host a tag is asked of; undefined when resolving asks no host (answered without network). */
function hostOf(oci: BundleRef, options: ResolveOptions): string | undefined {
  if (oci.digest) return undefined;
  const found = options.credentials?.lookup(oci, options.fieldPath ?? "spec.source.oci");
  if (found !== undefined && !found.ok) return undefined;
  if (oci.credentialsRef && found === undefined) return undefined;
  try {
    return parseRepository(oci.repo, "spec.source.oci").host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Equal asks share one call: the same repo, tag and credentials. Hashed, so the key holds no secret. */
function callKey(oci: BundleRef): string {
  const { repo, tag, credentials, credentialsRef } = oci;
  const identity = canonicalJson({ repo, tag: tag ?? DEFAULT_TAG, credentials, credentialsRef });
  return createHash("sha256").update(identity).digest("hex");
}

function queuedNow(host: string, oci: BundleRef): LaneWait {
  return { host, what: `tag "${oci.tag ?? DEFAULT_TAG}" of ${oci.repo}`, since: Date.now(), state: "queued" };
}
