// Git sources for the controller: mirrors, builds, previews, and the two triggers (polling every
// `--git-poll-interval`, and webhook deliveries). The public surface of this folder.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GitSource, ServiceSpec } from "../../sdk/schema";
import type { PreviewStatus } from "../../sdk/schema/status";
import type { KindCache } from "../cluster";
import { type CredentialsSource, NO_CREDENTIALS_FILE } from "../credentials";
import type { ControllerLogger } from "../logger";
import type { KubeObject } from "../objects";
import { GitBuilds, type GitState } from "./builds";
import { Mirrors } from "./mirrors";
import { Previews } from "./previews";
import { GitAllowList, repositoryKey, URL_FIELD } from "./url";
import type { HookEvent } from "./webhook";

export { BUILD_ANNOTATIONS, BUNDLE_LAYER_TYPE } from "./build";
export { PREVIEW_BRANCH_ANNOTATION, PREVIEW_LABELS, parentLabel, previewName } from "./previews";
export { type HookEvent, parseHookEvent } from "./webhook";

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
  /** Builds running at once. Default 2. */
  concurrency?: number;
  /** Where mirrors and checkouts live; default a temp dir removed on close (memory storage). */
  dir?: string;
  /** Resolves `build.output.credentialsRef` (the server's `--credentials` file). */
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
  private readonly poller: NodeJS.Timeout | undefined;
  private polling = false;

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
    this.mirrors = new Mirrors({
      allow: this.allow,
      root: join(this.root, "mirrors"),
      maxBytes,
      timeoutMs: buildTimeoutMs,
      signal: this.stopping.signal,
      onChange: (url) => this.requeueRepository(url),
    });
    this.builds = new GitBuilds({
      mirrors: this.mirrors,
      allow: this.allow,
      credentials: options.credentials ?? NO_CREDENTIALS_FILE,
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
      this.poller = setInterval(() => void this.poll(), interval);
      this.poller.unref();
    }
  }

  /** For the sync: what to mint for a git source and what status says of its builds (see `GitBuilds.evaluate`). */
  state(service: KubeObject, git: GitSource): GitState {
    return this.builds.evaluate(service, git);
  }

  /** For the sync: the parent's previews brought in line with its spec; the list for its status. */
  reconcilePreviews(parent: KubeObject, spec: ServiceSpec): Promise<PreviewStatus[]> {
    return this.previews.reconcile(parent, spec, Date.now());
  }

  forget(name: string): void {
    this.builds.forget(name);
    this.previews.forget(name);
  }

  /** A webhook delivery: fetches the repository it names, and syncs the Services that use it. */
  receive(event: HookEvent): HookResult {
    const matched = this.servicesOf(new Set(event.repositories));
    const urls = new Set(matched.map(({ url }) => url));
    for (const url of urls) {
      const open = event.pullRequest?.open;
      if (event.pullRequest && open !== undefined)
        this.previews.pullRequest(url, event.pullRequest.number, open);
      this.refresh(url);
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

  /** One poll: every repository a git Service names, fetched once. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const urls = new Set(this.servicesOf().map(({ url }) => url));
      await Promise.all([...urls].map((url) => this.refresh(url)));
    } finally {
      this.polling = false;
    }
  }

  private refresh(url: string): Promise<void> {
    // A URL refused before any fetch is not tried (its Services say why). One fetched before goes to
    // the mirror, which judges it again: refused now (a symlink re-pointed), it fails once, forgets its
    // refs and has its Services synced, which then say why.
    if (this.mirrors.refs(url) === undefined && this.allow.refusal(url, URL_FIELD) !== undefined) {
      return Promise.resolve();
    }
    return this.mirrors.refresh(url).then(
      () => undefined,
      (error: unknown) => {
        if (!this.stopping.signal.aborted) {
          this.context.log.warn({ url, error: String(error) }, "git fetch failed");
          // The Services learn of it through their next build; a change of refs queues them.
          this.requeueRepository(url);
        }
      },
    );
  }

  private requeueRepository(url: string): void {
    const key = repositoryKey(url);
    for (const { name } of this.servicesOf(key === undefined ? undefined : new Set([key]))) {
      this.context.requeue(name);
    }
  }

  /** Git Services, optionally only those naming one of `repositories`. */
  private servicesOf(repositories?: ReadonlySet<string>): { name: string; url: string }[] {
    return this.context.services.list().flatMap((service) => {
      const git = (service.spec.source as { git?: GitSource } | undefined)?.git;
      if (!git) return [];
      const key = repositoryKey(git.url);
      if (repositories && (key === undefined || !repositories.has(key))) return [];
      return [{ name: service.metadata.name, url: git.url }];
    });
  }
}
