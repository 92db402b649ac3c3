// What the server writes under `status`: the Kubernetes condition shape, the status of each kind, the
// condition types of a Service, the reasons each type carries, and which reasons are failures that no
// waiting fixes. The server's controller writes them and the provider waits on them; neither spells a
// condition type or a reason itself. Like the rest of the schema, this module imports nothing.

export type ConditionStatus = "True" | "False" | "Unknown";

/** One condition, in the Kubernetes shape. */
export interface Condition {
  /** One of `CONDITION_TYPES`; a string, since a newer server may report types this package does not know. */
  type: string;
  status: ConditionStatus;
  /** A machine-readable word (`CONDITION_REASONS`); `message` is the sentence for people. */
  reason: string;
  message: string;
  /** When `status` last changed; a new reason or message with the same status keeps it. */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed for. */
  observedGeneration?: number;
}

export interface ObjectStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}

/** The condition of `type` an object's status reports, if any. */
export function conditionOf(
  object: { status?: ObjectStatus | undefined } | undefined,
  type: string,
): Condition | undefined {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}

/** The phases of one git build, in order. */
export const BUILD_PHASES = {
  /** Waiting for a build slot (builds run a few at a time). */
  Pending: "Pending",
  /** Fetching, running the build command, packaging or pushing. */
  Running: "Running",
  /** Pushed: `digest` is the manifest digest in `build.output`. */
  Succeeded: "Succeeded",
  /** Failed; `message` says what failed and how to fix it. */
  Failed: "Failed",
} as const;

export type BuildPhase = (typeof BUILD_PHASES)[keyof typeof BUILD_PHASES];

/** One build of a git-sourced Service: which commit of which branch, and what it produced. */
export interface BuildStatus {
  phase: BuildPhase;
  /** The branch built (`triggers.productionBranch`, or a preview's branch). */
  branch: string;
  /**
   * While `phase` is Pending: how many builds wait ahead of this one for a build slot (0: it takes the
   * next slot that frees). Kept current as the queue moves; unset once the build runs.
   */
  ahead?: number;
  /** The full commit id built; unset while the fetch has not found it. */
  commit?: string;
  /** The pushed manifest digest (`sha256:…`), set when `phase` is Succeeded. */
  digest?: string;
  startTime?: string;
  completionTime?: string;
  /** A bounded message or log tail (at most 2 KiB), secrets redacted. */
  message?: string;
}

/** A preview Service the controller spawned for a branch or a pull request (API-SPEC rule 7). */
export interface PreviewStatus {
  /** The preview Service's name. */
  name: string;
  branch: string;
  /** The pull request's number, when the preview is for one. */
  pullRequest?: number;
}

/**
 * A branch or pull-request head a preview is made for, and when the server first saw it there: the idle
 * clock of `previews.ttl`, kept in status so that a restart does not start it again.
 */
export interface PreviewHeadStatus {
  /** The full ref (`refs/heads/feature`, `refs/pull/7/head`). */
  ref: string;
  commit: string;
  /** When the server first saw `ref` at `commit` (RFC 3339). */
  since: string;
}

/** What a moving `source.oci.tag` resolved to, and when. */
export interface ResolvedBundleStatus {
  tag: string;
  digest: string;
  resolvedAt: string;
}

export interface ServiceStatus extends ObjectStatus {
  /** The revision minted for the current template and bundle, or the last one minted while that fails. */
  latestRevision?: string;
  /** The revision selected to serve (`spec.liveRevision` when pinned, else the latest). */
  liveRevision?: string;
  /** A git source's build in progress (phase Pending or Running); unset when none runs. */
  build?: BuildStatus;
  /** A git source's last finished build (Succeeded or Failed). */
  lastBuild?: BuildStatus;
  /** The preview Services this Service owns, sorted by name. */
  previews?: PreviewStatus[];
  /** With previews: the heads of the refs previews are made for, an expired preview's too, sorted by ref. */
  previewHeads?: PreviewHeadStatus[];
  /** With pull-request previews: the pull requests a webhook said are closed, whose refs remain. */
  closedPullRequests?: number[];
  /** An OCI source named by tag: the digest the tag last resolved to. */
  resolvedBundle?: ResolvedBundleStatus;
}

/** The condition types of a Service, one per concern, in the order the controller reports them. */
export const CONDITION_TYPES = {
  /** Whether a revision is minted for the current generation (template and bundle). */
  Accepted: "Accepted",
  /** Whether outbound traffic goes through an egress gateway that exists. */
  EgressReady: "EgressReady",
  /** Whether the revision selected to serve exists and belongs to the Service. */
  LiveRevisionReady: "LiveRevisionReady",
  /** A git source: whether the last fetch of its repository worked (reported for git sources only). */
  SourceReady: "SourceReady",
} as const;

export type ConditionType = (typeof CONDITION_TYPES)[keyof typeof CONDITION_TYPES];

/** The reasons of each condition type; the one with status True comes first. */
export const CONDITION_REASONS = {
  Accepted: {
    /** True: the revision for the current template and bundle exists (minted now or before). */
    Minted: "Minted",
    /** False: a git source; no revision until a build produces a bundle digest. */
    AwaitingBuild: "AwaitingBuild",
    /** False: the last build failed (build error, unreachable repository, missing branch, escape, timeout). */
    BuildFailed: "BuildFailed",
    /** False: `build.command` is set but the server runs no build commands (`--build-commands` is off). */
    BuildCommandsDisabled: "BuildCommandsDisabled",
    /** False: `credentialsRef` names credentials the server does not have (`--credentials`). */
    CredentialsNotFound: "CredentialsNotFound",
    /** False: `source.git.credentialsRef` names credentials the server does not have (`--credentials`). */
    GitCredentialsNotFound: "GitCredentialsNotFound",
    /** False: the git server refused the credentials `source.git.credentialsRef` names (or asked for some). */
    GitAuthenticationFailed: "GitAuthenticationFailed",
    /**
     * Unknown: the bundle's tag is being resolved and the registry has not answered yet; the message names the
     * registry host, what is asked and how long the controller has waited.
     */
    AwaitingRegistry: "AwaitingRegistry",
    /** False: the bundle's tag could not be resolved to a digest (registry refused, unreachable, no tag). */
    BundleResolutionFailed: "BundleResolutionFailed",
    /** False: the source cannot be used as written (no source, a malformed repo). */
    InvalidSource: "InvalidSource",
    /** False: the revision's name is held by a ServiceRevision this Service does not control. */
    RevisionNameTaken: "RevisionNameTaken",
  },
  EgressReady: {
    /** True: outbound traffic goes through the gateway. */
    Applied: "Applied",
    /** False: `egress.disabled` denies all outbound traffic. */
    Disabled: "Disabled",
    /** False: the gateway `egress.gatewayRef` names (or the default one) does not exist. */
    GatewayNotFound: "GatewayNotFound",
  },
  LiveRevisionReady: {
    /** True: the pinned revision, or the latest, serves. */
    Live: "Live",
    /** False: nothing is minted yet (see Accepted). */
    NoRevision: "NoRevision",
    /** False: `spec.liveRevision` names a revision that does not exist. */
    RevisionNotFound: "RevisionNotFound",
    /** False: `spec.liveRevision` names a revision of another Service. */
    RevisionNotOwned: "RevisionNotOwned",
  },
  SourceReady: {
    /** True: the last fetch of the repository worked and found the branch. */
    Fetched: "Fetched",
    /** Unknown: no fetch has finished yet. */
    AwaitingFetch: "AwaitingFetch",
    /** False: the fetch failed (unreachable repository, a git error, a timeout, a repository over the size cap). */
    FetchFailed: "FetchFailed",
    /** False: the server's `--git-allow` refuses the URL. */
    FetchRefused: "FetchRefused",
    /** False: `source.git.credentialsRef` names credentials the server does not have. */
    FetchCredentialsNotFound: "FetchCredentialsNotFound",
    /** False: the git server refused the credentials (or asked for some). */
    FetchAuthenticationFailed: "FetchAuthenticationFailed",
    /** False: the repository has no branch `triggers.productionBranch`. */
    BranchNotFound: "BranchNotFound",
  },
} as const;

/** The reasons a condition of type `T` carries. */
export type ReasonOf<T extends ConditionType> =
  (typeof CONDITION_REASONS)[T][keyof (typeof CONDITION_REASONS)[T]];

export type ConditionReason = ReasonOf<ConditionType>;

/**
 * False reasons that no amount of waiting fixes: a provider waiting for the controller fails with the
 * condition's message instead of waiting for its timeout. A source the controller cannot resolve as
 * written, and a pinned `spec.liveRevision` that cannot serve (a rollback to a typo must not look like
 * success).
 */
export const TERMINAL_REASONS: { readonly [T in ConditionType]: readonly ReasonOf<T>[] } = {
  Accepted: [
    CONDITION_REASONS.Accepted.BundleResolutionFailed,
    CONDITION_REASONS.Accepted.InvalidSource,
    CONDITION_REASONS.Accepted.BuildFailed,
    CONDITION_REASONS.Accepted.BuildCommandsDisabled,
    CONDITION_REASONS.Accepted.CredentialsNotFound,
    CONDITION_REASONS.Accepted.GitCredentialsNotFound,
    CONDITION_REASONS.Accepted.GitAuthenticationFailed,
  ],
  EgressReady: [],
  LiveRevisionReady: [
    CONDITION_REASONS.LiveRevisionReady.RevisionNotFound,
    CONDITION_REASONS.LiveRevisionReady.RevisionNotOwned,
  ],
  // A repository that cannot be fetched needs someone to act (a URL, an allow-list, credentials, a branch).
  SourceReady: [
    CONDITION_REASONS.SourceReady.FetchFailed,
    CONDITION_REASONS.SourceReady.FetchRefused,
    CONDITION_REASONS.SourceReady.FetchCredentialsNotFound,
    CONDITION_REASONS.SourceReady.FetchAuthenticationFailed,
    CONDITION_REASONS.SourceReady.BranchNotFound,
  ],
};

/**
 * The three conditions every tool that reads Kubernetes readiness understands (kstatus of
 * `sigs.k8s.io/cli-utils`, used by Flux and kpt; Argo CD's health checks; pulumi-kubernetes' await;
 * `kubectl wait --for=condition=Ready`), reported by Services and Proxies after their own conditions.
 * status-readiness.ts derives them from what the controller observed; see docs/operating.md.
 */
export const READINESS_TYPES = {
  /** The object is what its spec asks for (a Service: its target revision exists, is selected and serves). */
  Ready: "Ready",
  /** The controller is still working towards the spec (minting, resolving a tag, building, draining). */
  Reconciling: "Reconciling",
  /** The controller cannot get there without a change by someone (a build failed, a pinned revision is gone). */
  Stalled: "Stalled",
} as const;

export type ReadinessType = (typeof READINESS_TYPES)[keyof typeof READINESS_TYPES];

/**
 * The readiness conditions' own reasons. Where a concern of the object decides (a Service's `Accepted`,
 * `LiveRevisionReady`, `EgressReady` or `SourceReady`), the readiness condition carries that concern's
 * reason and message instead, so `Stalled` of a failed build says `BuildFailed` with the build's message.
 */
export const READINESS_REASONS = {
  /** Ready True: everything the spec asks for is in place. */
  Ready: "Ready",
  /** Reconciling False (and Stalled False): nothing is left to do for this generation. */
  Reconciled: "Reconciled",
  /** Stalled False while Reconciling is True: the controller is working, nothing blocks it. */
  Progressing: "Progressing",
  /** Reconciling True while a Service's build of a new commit runs (its current revision may still serve). */
  Building: "Building",
  /** A Proxy being deleted: Ready False and Reconciling True while it drains. */
  Draining: "Draining",
} as const;

export type ReadinessReason = (typeof READINESS_REASONS)[keyof typeof READINESS_REASONS];

function isConditionType(type: string): type is ConditionType {
  return Object.hasOwn(TERMINAL_REASONS, type);
}

/** Whether the condition is False for a reason `TERMINAL_REASONS` lists for its type. */
export function isTerminalFailure(condition: Pick<Condition, "type" | "status" | "reason">): boolean {
  if (condition.status !== "False" || !isConditionType(condition.type)) return false;
  return (TERMINAL_REASONS[condition.type] as readonly string[]).includes(condition.reason);
}
