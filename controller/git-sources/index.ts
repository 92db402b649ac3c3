// Git sources for the controller: mirrors, builds, previews, and the two triggers (polling every
// `--git-poll-interval`, and webhook deliveries). The public surface of this folder.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CredentialsSource, NO_CREDENTIALS_FILE } from "../../builder/credentials";
import {
  GitAllowList,
  type HookEvent,
  type MirrorSource,
  Mirrors,
  mirrorKey,
  repositoryKey,
  URL_FIELD,
} from "../../builder/git";
import type { ApiObject } from "../../sdk/client/types";
import type { GitSource, ServiceSpec } from "../../sdk/schema";
import type { KindCache } from "../cluster";
import type { ConditionState } from "../conditions";
import type { ControllerLogger } from "../logger";
import { GitBuilds, type GitState } from "./builds";
import { Previews, type PreviewsReport } from "./previews";
import { sourceReadyCondition } from "./source-ready";

export { PREVIEW_BRANCH_ANNOTATION, PREVIEW_LABELS, parentLabel, previewName } from "./previews";

/** The server's settings for git sources (flags of `server/main.ts`). */
export interface GitOptions {
  /** `--git-allow`: URL prefixes the server may fetch. Default: local paths, file:// and loopback hosts. */
  allow?: readonly string[];
  /** `--git-poll-interval`; 0 turns polling off. Default 30 s. */
  pollIntervalMs?: number;
  /** `--build-commands`: run `build.command` on this machine. Default false. */
  buildCommands?: boolean;
  /** `--build-timeout`, per build. Default 10 min. */
  buildTimeoutMs?: number;
  /** `--git-max-clone-size`: bound of one mirror and of one packaged directory. Default 1 GiB. */
  maxCloneBytes?: number;
  /** Builds running at once per git host (a host that hangs holds up only its own). Default 2. */
  concurrency?: number;
  /** Where mirrors and checkouts live; default a temp dir removed on close (memory storage). */
  dir?: string;
  /** Resolves `credentialsRef` and `build.output.credentialsRef` (the server's `--credentials` file). */
  credentials?: CredentialsSource;
}

export const GIT_DEFAULTS = {
  pollIntervalMs: 30_000,
  buildTimeoutMs: 600_000,
  maxCloneBytes: 1024 * 1024 * 1024,
  concurrency: 2,
} as const;

export interface HookResult {
  /** The Services whose source names the repository, by name. */
  matched: string[];
}

interface Context {
  services: KindCache;
  requeue(name: string): void;
  log: ControllerLogger;
}

export class GitSources {
  private readonly stopping = new AbortController();
  private readonly root: string;
  private readonly temporary: boolean;
  private readonly mirrors: Mirrors;
  private readonly builds: GitBuilds;
  private readonly previews: Previews;
  private readonly allow: GitAllowList;
  private readonly credentials: CredentialsSource;
  private readonly poller: NodeJS.Timeout | undefined;
  /** The mirrors a poll's fetch is still under way for: the next poll leaves them be, and fetches the rest. */
  private readonly polling = new Set<string>();

  constructor(
    options: GitOptions,
    private readonly context: Context,
  ) {
    this.temporary = options.dir === undefined;
    // Created by the first fetch or build only: a server without git Services leaves nothing on disk.
    this.root = options.dir ?? join(tmpdir(), `exampledev-git-${randomUUID()}`);
    const workDir = join(this.root, "work");
    const buildTimeoutMs = options.buildTimeoutMs ?? GIT_DEFAULTS.buildTimeoutMs;
    const maxBytes = options.maxCloneBytes ?? GIT_DEFAULTS.maxCloneBytes;
    this.allow = new GitAllowList(options.allow);
    this.credentials = options.credentials ?? NO_CREDENTIALS_FILE;
    this.mirrors = new Mirrors({
      credentials: this.credentials,
      allow: this.allow,
      root: join(this.root, "mirrors"),
      maxBytes,
      timeoutMs: buildTimeoutMs,
      signal: this.stopping.signal,
      onChange: (source) => this.requeueRepository(source.url),
    });
    this.builds = new GitBuilds({
      mirrors: this.mirrors,
      allow: this.allow,
      credentials: this.credentials,
      workDir,
      buildCommands: options.buildCommands ?? false,
      timeoutMs: buildTimeoutMs,
      concurrency: options.concurrency ?? GIT_DEFAULTS.concurrency,
      maxBytes,
      requeue: context.requeue,
      log: context.log,
      signal: this.stopping.signal,
    });
    this.previews = new Previews({
      services: context.services,
      mirrors: this.mirrors,
      log: context.log,
      requeue: context.requeue,
    });
    const interval = options.pollIntervalMs ?? GIT_DEFAULTS.pollIntervalMs;
    if (interval > 0) {
      this.poller = setInterval(() => this.poll(), interval);
      this.poller.unref();
    }
  }

  /** For the sync: what to mint for a git source and what status says of its builds (see `GitBuilds.evaluate`). */
  state(service: ApiObject, git: GitSource): GitState {
    return this.builds.evaluate(service, git);
  }

  /** For the sync: the `SourceReady` condition, from the last fetch of the repository. */
  sourceReady(git: GitSource): ConditionState {
    const fetching = git.credentialsRef
      ? this.credentials.lookup(git, "spec.source.git", { inline: false })
      : undefined;
    return sourceReadyCondition({
      url: git.url,
      branch: git.triggers.productionBranch,
      refusal: this.allow.refusal(git.url, URL_FIELD),
      ...(fetching?.ok === false && { missingCredentials: fetching.message }),
      failure: this.mirrors.failure(git),
      refs: this.mirrors.refs(git),
    });
  }

  /** The credentials file changed: repositories fetched with credentials are fetched again at once. */
  credentialsChanged(): void {
    for (const source of this.sourcesOf(this.servicesOf()))
      if (source.credentialsRef) void this.refresh(source);
  }

  /** For the sync: the parent's previews brought in line with its spec; what its status says of them. */
  reconcilePreviews(parent: ApiObject, spec: ServiceSpec): Promise<PreviewsReport> {
    return this.previews.reconcile(parent, spec, Date.now());
  }

  forget(name: string): void {
    this.builds.forget(name);
    this.previews.forget(name);
  }

  /** A webhook delivery: fetches the repository it names, and syncs the Services that use it. */
  receive(event: HookEvent): HookResult {
    const matched = this.servicesOf(new Set(event.repositories));
    for (const source of this.sourcesOf(matched)) {
      const open = event.pullRequest?.open;
      if (event.pullRequest && open !== undefined)
        this.previews.pullRequest(source.url, event.pullRequest.number, open);
      void this.refresh(source);
    }
    // A closed pull request changes no ref: its parent must look again whatever the fetch finds.
    for (const { name } of matched) this.context.requeue(name);
    return { matched: matched.map(({ name }) => name) };
  }

  async close(): Promise<void> {
    clearInterval(this.poller);
    this.stopping.abort(new Error("the controller is stopping"));
    this.previews.close();
    // Killed processes must be gone before their directories are removed.
    await this.builds.settled();
    await this.mirrors.settled();
    if (this.temporary) rmSync(this.root, { recursive: true, force: true });
  }

  /**
   * One poll: every repository a git Service names, fetched once; one whose last poll's fetch still runs (a
   * host that hangs, until the fetch's timeout) is left to it, and holds up no other repository's poll.
   */
  private poll(): void {
    for (const source of this.sourcesOf(this.servicesOf())) {
      const key = mirrorKey(source);
      if (this.polling.has(key)) continue;
      this.polling.add(key);
      void this.refresh(source).finally(() => this.polling.delete(key));
    }
  }

  private refresh(source: MirrorSource): Promise<void> {
    const { url } = source;
    // A URL refused before any fetch is not tried (its Services say why). One fetched before goes to
    // the mirror, which judges it again: refused now (a symlink re-pointed), it fails once, forgets its
    // refs and has its Services synced, which then say why.
    if (this.mirrors.refs(source) === undefined && this.allow.refusal(url, URL_FIELD) !== undefined) {
      return Promise.resolve();
    }
    return this.mirrors.refresh(source).then(
      () => undefined,
      (error: unknown) => {
        if (!this.stopping.signal.aborted) {
          // The message is redacted already, and names a credentials reference, never its value.
          this.context.log.warn({ url, error: String(error) }, "git fetch failed");
          // Their SourceReady condition says why; a fetch that works again queues them through its refs.
          this.requeueRepository(url);
        }
      },
    );
  }

  /** The distinct mirrors of `services`. */
  private sourcesOf(services: readonly { source: MirrorSource }[]): MirrorSource[] {
    return [...new Map(services.map(({ source }) => [mirrorKey(source), source])).values()];
  }

  private requeueRepository(url: string): void {
    const key = repositoryKey(url);
    for (const { name } of this.servicesOf(key === undefined ? undefined : new Set([key]))) {
      this.context.requeue(name);
    }
  }

  /** Git Services, optionally only those naming one of `repositories`. */
  private servicesOf(repositories?: ReadonlySet<string>): { name: string; source: MirrorSource }[] {
    return this.context.services.list().flatMap((service) => {
      const git = (service.spec.source as { git?: GitSource } | undefined)?.git;
      if (!git) return [];
      const key = repositoryKey(git.url);
      if (repositories && (key === undefined || !repositories.has(key))) return [];
      return [{ name: service.metadata.name, source: { url: git.url, credentialsRef: git.credentialsRef } }];
    });
  }
}
