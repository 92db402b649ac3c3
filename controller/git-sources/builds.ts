// What the controller knows about each git-sourced Service's builds, and the runner that makes them. The
// sync asks `evaluate` (synchronous; no I/O but the real path of a local repository, for --git-allow): it
// reads the state, may queue a build, and says what to mint or why not. Builds run outside the
// controller's worker, a few at a time, each under a timeout; a build that changes phase or ends queues
// its Service again, so the sync writes the news to status.
import { createHash } from "node:crypto";
import type { CredentialsSource } from "../../builder/credentials";
import {
  BuildFailure,
  type BuildRequest,
  type BuildResult,
  branchRef,
  buildMessage,
  FetchFailure,
  type GitAllowList,
  gitHost,
  KeyedLock,
  type Mirrors,
  runBuild,
  Slots,
  URL_FIELD,
} from "../../builder/git";
import type { ApiObject } from "../../sdk/client/types";
import { type BundleRef, type GitSource, SECRET_FIELDS } from "../../sdk/schema";
import { BUILD_PHASES, type BuildStatus, CONDITION_REASONS } from "../../sdk/schema/status";
import type { ControllerLogger } from "../logger";
import { canonicalJson } from "../naming";
import type { RejectionReason } from "../status";

const {
  AwaitingBuild,
  BuildFailed,
  BuildCommandsDisabled,
  InvalidSource,
  GitAuthenticationFailed,
  GitCredentialsNotFound,
} = CONDITION_REASONS.Accepted;

const GIT_FIELD = "spec.source.git";

export interface BuildSettings {
  /** `--build-commands`: run `build.command`. */
  buildCommands: boolean;
  /** `--build-timeout`, per build. */
  timeoutMs: number;
  /** Builds running at once. */
  concurrency: number;
  /** `--git-max-clone-size`: bound of a mirror and of a packaged directory. */
  maxBytes: number;
}

/** What the sync mints for a git source, and what status says about its builds. */
export interface GitState {
  outcome: { ok: true; digest: string } | { ok: false; reason: RejectionReason; message: string };
  build?: BuildStatus;
  lastBuild?: BuildStatus;
  /** A commit `triggers.paths` skipped, for the Accepted message. */
  skipped?: string;
}

interface Running {
  status: BuildStatus;
  abort: AbortController;
  /** The Service's generation the build was started for. */
  generation: number;
}

/** One Service's builds for one fingerprint of its source (a change of the source starts over). */
interface Builds {
  uid: string | undefined;
  fingerprint: string;
  /** No build was tried for this fingerprint yet. */
  fresh: boolean;
  current?: Running;
  last?: BuildStatus;
  /** The last successful build (`last` may be a later failure). */
  succeeded?: { commit: string; digest: string };
  /** The branch head the last build looked at (undefined: unknown, as when the fetch failed). */
  settledHead?: string;
  /** The generation a failed build was made for: a later write of the Service (new credentials) retries. */
  failedGeneration?: number;
  /** Why the last build failed, when it was the fetch's credentials rather than the build. */
  failedReason?: RejectionReason;
  skipped?: string;
}

/**
 * What of the source decides the build: a change to it builds again; templates, paths and previews do not.
 * The output's credentials count (new ones may push where the old ones were refused), hashed: the
 * fingerprint stays in memory, but holds no secret even there.
 */
function fingerprintOf(git: GitSource): string {
  const { builder, command, env, rootDir, output } = git.build;
  const { credentials, credentialsRef, repo, tag } = output;
  return canonicalJson({
    url: git.url,
    credentialsRef: git.credentialsRef,
    branch: git.triggers.productionBranch,
    build: { builder, command, env, rootDir, output: { repo, tag, credentialsRef } },
    credentials: createHash("sha256").update(canonicalJson(credentials)).digest("hex"),
  });
}

function isBuildStatus(value: unknown): value is BuildStatus {
  return typeof value === "object" && value !== null && typeof (value as BuildStatus).phase === "string";
}

const short = (commit: string | undefined) => (commit ? commit.slice(0, 12) : "");

/** The Accepted reason of a fetch that failed over its credentials; undefined for other failures. */
function credentialsReason(error: BuildFailure): RejectionReason | undefined {
  if (!(error instanceof FetchFailure)) return undefined;
  const { SourceReady } = CONDITION_REASONS;
  if (error.reason === SourceReady.FetchAuthenticationFailed) return GitAuthenticationFailed;
  if (error.reason === SourceReady.FetchCredentialsNotFound) return GitCredentialsNotFound;
  return undefined;
}

export interface GitBuildsOptions extends BuildSettings {
  mirrors: Mirrors;
  allow: GitAllowList;
  /** Inline credentials, or what a `credentialsRef` names in the server's `--credentials` file. */
  credentials: CredentialsSource;
  /** Where checkouts are made. */
  workDir: string;
  /** Queues a Service for a sync. */
  requeue(name: string): void;
  log: ControllerLogger;
  /** Aborts every build when the controller stops. */
  signal: AbortSignal;
}

export class GitBuilds {
  private readonly builds = new Map<string, Builds>();
  /** Per git host (`local` for paths and file:// URLs): a host that hangs fills its own slots only. */
  private readonly slots = new Map<string, Slots>();
  private readonly pushes = new KeyedLock();
  /** Builds under way, for `settled`. */
  private readonly runs = new Set<Promise<void>>();

  constructor(private readonly options: GitBuildsOptions) {}

  /** Synchronous: reads what is known, queues a build when one is due, and says what to mint. */
  evaluate(service: ApiObject, git: GitSource): GitState {
    const refusal = this.refusal(git);
    if (refusal) return { outcome: { ok: false, ...refusal } };
    const credentials = this.options.credentials.lookup(git.build.output, `${GIT_FIELD}.build.output`);
    if (!credentials.ok) return { outcome: credentials };
    if (git.credentialsRef) {
      const fetching = this.options.credentials.lookup(git, GIT_FIELD, { inline: false });
      if (!fetching.ok) return { outcome: { ...fetching, reason: GitCredentialsNotFound } };
    }
    const state = this.stateOf(service, git);
    const head = this.options.mirrors.refs(git);
    const branchHead = head?.get(branchRef(git.triggers.productionBranch))?.commit;
    const generation = service.metadata.generation ?? 1;
    const due =
      state.fresh ||
      (head !== undefined && branchHead !== state.settledHead) ||
      (state.failedGeneration !== undefined && state.failedGeneration !== generation);
    if (!state.current && due)
      this.start(service.metadata.name, generation, state, git, credentials.credentials);
    return {
      outcome: this.outcome(state, git),
      ...(state.current && { build: { ...state.current.status } }),
      ...(state.last && { lastBuild: { ...state.last } }),
      ...(state.skipped && { skipped: state.skipped }),
    };
  }

  /** The build slots of the git host `url` names. */
  private slotsOf(url: string): Slots {
    const host = gitHost(url);
    let slots = this.slots.get(host);
    if (!slots) {
      slots = new Slots(this.options.concurrency);
      this.slots.set(host, slots);
    }
    return slots;
  }

  /** Resolves once every build under way has ended (after the controller's signal aborted them). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.runs]);
  }

  /** The Service is gone: its build stops. */
  forget(name: string): void {
    this.builds.get(name)?.current?.abort.abort(new Error("the Service was deleted"));
    this.builds.delete(name);
  }

  private refusal(git: GitSource): { reason: RejectionReason; message: string } | undefined {
    const notAllowed = this.options.allow.refusal(git.url, URL_FIELD);
    if (notAllowed) return { reason: InvalidSource, message: notAllowed };
    if ((git.build.command?.length ?? 0) > 0 && !this.options.buildCommands) {
      return {
        reason: BuildCommandsDisabled,
        message: `${GIT_FIELD}.build.command is set, but this server runs no build commands (they run code from the repository on the server's machine): start the server with --build-commands, or remove build.command to package rootDir as it is in the commit`,
      };
    }
    return undefined;
  }

  /** The Service's record, new when the Service or its source changed; seeded from status after a restart. */
  private stateOf(service: ApiObject, git: GitSource): Builds {
    const { name, uid, generation } = service.metadata;
    const fingerprint = fingerprintOf(git);
    const known = this.builds.get(name);
    if (known && known.uid === uid && known.fingerprint === fingerprint) return known;
    known?.current?.abort.abort(new Error("the source changed"));
    const state: Builds = { uid, fingerprint, fresh: true };
    // A restart: status tells what was built for this very spec (same generation, same branch).
    const last = service.status?.lastBuild;
    if (!known && service.status?.observedGeneration === generation && isBuildStatus(last)) {
      if (last.branch === git.triggers.productionBranch) {
        state.fresh = false;
        state.last = last;
        state.settledHead = last.commit;
        if (last.phase === BUILD_PHASES.Succeeded && last.commit && last.digest) {
          state.succeeded = { commit: last.commit, digest: last.digest };
        }
      }
    }
    this.builds.set(name, state);
    return state;
  }

  private outcome(state: Builds, git: GitSource): GitState["outcome"] {
    const branch = git.triggers.productionBranch;
    // A failed build stands until another build runs (a new commit, or a new write of the Service).
    if (state.last?.phase === BUILD_PHASES.Failed && !state.current) {
      const commit = state.last.commit ? `commit ${short(state.last.commit)} of ` : "";
      return {
        ok: false,
        reason: state.failedReason ?? BuildFailed,
        message: `the build of ${commit}branch "${branch}" failed: ${state.last.message ?? "no reason given"}`,
      };
    }
    if (state.succeeded) {
      return { ok: true, digest: state.succeeded.digest };
    }
    const phase = state.current?.status.phase ?? BUILD_PHASES.Pending;
    return {
      ok: false,
      reason: AwaitingBuild,
      message: `no revision until the first build of branch "${branch}" of ${git.url} pushes a bundle to ${git.build.output.repo} (build ${phase.toLowerCase()})`,
    };
  }

  private start(
    name: string,
    generation: number,
    state: Builds,
    git: GitSource,
    credentials: BundleRef["credentials"],
  ): void {
    const branch = git.triggers.productionBranch;
    const abort = new AbortController();
    const running: Running = { status: { phase: BUILD_PHASES.Pending, branch }, abort, generation };
    state.current = running;
    state.fresh = false;
    state.failedGeneration = undefined;
    const source: GitSource = {
      ...git,
      build: { ...git.build, output: { ...git.build.output, credentials } },
    };
    const request: BuildRequest = { url: git.url, branch, source, base: state.succeeded?.commit };
    const secrets = SECRET_FIELDS.filter(({ type }) => type === "OCICredentials").flatMap(({ field }) => {
      const value = (credentials as Record<string, unknown> | undefined)?.[field];
      return typeof value === "string" && value !== "" ? [value] : [];
    });
    const run = this.run(name, state, running, request, secrets);
    this.runs.add(run);
    void run.finally(() => this.runs.delete(run));
  }

  private async run(
    name: string,
    state: Builds,
    running: Running,
    request: BuildRequest,
    secrets: readonly string[],
  ): Promise<void> {
    const { log, timeoutMs } = this.options;
    const stopped = AbortSignal.any([this.options.signal, running.abort.signal]);
    let release: (() => void) | undefined;
    let commit: string | undefined;
    let result: BuildResult | undefined;
    let failure: string | undefined;
    let failedReason: RejectionReason | undefined;
    const startTime = new Date().toISOString();
    try {
      // Told its place at once (the Pending status `evaluate` returns has it), then as the queue moves:
      // each change queues the Service, so the sync writes the new number, and only then.
      let queued = false;
      const acquired = this.slotsOf(request.url).acquire(stopped, (ahead) => {
        if (running.status.phase !== BUILD_PHASES.Pending || running.status.ahead === ahead) return;
        running.status = { ...running.status, ahead };
        if (queued) this.options.requeue(name);
      });
      queued = true;
      release = await acquired;
      running.status = {
        phase: BUILD_PHASES.Running,
        branch: request.branch,
        startTime: new Date().toISOString(),
      };
      this.options.requeue(name);
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([stopped, timeout]);
      const started = Date.now();
      try {
        result = await runBuild(request, {
          mirrors: this.options.mirrors,
          workDir: this.options.workDir,
          buildCommands: this.options.buildCommands,
          maxBytes: this.options.maxBytes,
          pushes: this.pushes,
          signal,
          onCommit: (found) => {
            commit = found;
            running.status = { ...running.status, commit: found };
            this.options.requeue(name);
          },
        });
        log.info(
          { service: name, ...result, ms: Date.now() - started },
          result.kind === "built" ? "build pushed" : "build skipped",
        );
      } catch (error) {
        if (stopped.aborted) return;
        if (timeout.aborted) {
          failure = `the build took longer than the server's --build-timeout of ${timeoutMs} ms and was stopped; make the build faster, or start the server with a longer --build-timeout`;
        } else if (error instanceof BuildFailure) {
          failure = error.message;
          failedReason = credentialsReason(error);
        } else {
          failure = `the build failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;
          log.error({ service: name, error: buildMessage(String(error), secrets) }, "build crashed");
        }
      }
    } catch {
      // Aborted while waiting for a slot: the Service was deleted or changed, or the controller stops.
      return;
    } finally {
      release?.();
      if (state.current === running) state.current = undefined;
    }
    if (this.builds.get(name) !== state) return;
    const times = { startTime: running.status.startTime ?? startTime };
    this.finish(name, state, request, { commit, result, failure, ...times }, secrets);
    if (failure !== undefined) state.failedGeneration = running.generation;
    state.failedReason = failedReason;
  }

  private finish(
    name: string,
    state: Builds,
    request: BuildRequest,
    done: { commit?: string; result?: BuildResult; failure?: string; startTime: string },
    secrets: readonly string[],
  ): void {
    const completionTime = new Date().toISOString();
    const base = { branch: request.branch, startTime: done.startTime, completionTime };
    if (done.result?.kind === "skipped") {
      state.skipped = done.result.commit;
      state.settledHead = done.result.commit;
      this.options.log.info(
        { service: name, commit: done.result.commit },
        "commit skipped: it changes no path matching spec.source.git.triggers.paths",
      );
    } else if (done.result?.kind === "built") {
      const { commit, digest } = done.result;
      state.last = { phase: BUILD_PHASES.Succeeded, ...base, commit, digest };
      state.succeeded = { commit, digest };
      state.settledHead = commit;
      state.skipped = undefined;
    } else {
      const message = buildMessage(done.failure ?? "the build failed", secrets);
      state.last = {
        phase: BUILD_PHASES.Failed,
        ...base,
        ...(done.commit && { commit: done.commit }),
        message,
      };
      // The head this attempt saw: unknown (undefined) when the fetch failed, so only a fetch that works
      // again, or a new commit, builds again; never a loop of failing builds.
      state.settledHead =
        done.commit ?? this.options.mirrors.refs(request.source)?.get(branchRef(request.branch))?.commit;
      this.options.log.warn({ service: name, message }, "build failed");
    }
    this.options.requeue(name);
  }
}
