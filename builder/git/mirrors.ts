// One bare mirror per repository and credentials, under the server's data directory, shared by every
// Service that names both (a Service without the credentials never reads what they fetched): fetched
// incrementally (branches and GitHub-style pull-request heads), one fetch at a time per mirror, and
// bounded in size (a mirror over the cap is removed and the fetch fails). Each mirror remembers how its
// last fetch ended, for the Services' `SourceReady` condition.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { redact } from "../../sdk/errors/redact";
import type { GitSource } from "../../sdk/schema";
import { CONDITION_REASONS } from "../../sdk/schema/status";
import { CREDENTIALS_FLAG, type CredentialsSource, describeRef } from "../credentials";
import { FetchFailure, sizeText } from "./failure";
import { authEnvironment, type FetchAuth, fetchAuthOf } from "./fetch-auth";
import { git } from "./run";
import { type GitAllowList, repositoryKey, URL_FIELD } from "./url";

const { FetchFailed, FetchRefused, FetchAuthenticationFailed, FetchCredentialsNotFound } =
  CONDITION_REASONS.SourceReady;

const GIT_FIELD = "spec.source.git";

/** What a mirror is fetched from: the repository, and the credentials its fetches send. */
export type MirrorSource = Pick<GitSource, "url" | "credentialsRef">;

/** git's words when the server wants credentials or refused the ones sent. */
const AUTHENTICATION_ERROR =
  /Authentication failed|could not read (Username|Password)|terminal prompts disabled|returned error: 40[13]/i;

/** Where a ref points and the committer date of that commit (seconds since the epoch). */
export interface RefHead {
  commit: string;
  time: number;
}

/** Full ref names (`refs/heads/main`, `refs/pull/1/head`) to their heads. */
export type RefSnapshot = ReadonlyMap<string, RefHead>;

export interface MirrorsOptions {
  /** The directory the mirrors live in. */
  root: string;
  /** Judged again right before each fetch: a symlink may have been re-pointed since admission. */
  allow: GitAllowList;
  /** A mirror larger than this is removed and its fetch fails. */
  maxBytes: number;
  /** Bounds one fetch. */
  timeoutMs: number;
  /** Aborts fetches under way when the controller stops. */
  signal: AbortSignal;
  /** What `credentialsRef` names (`--credentials`), looked up again before each fetch (a rotated password). */
  credentials: CredentialsSource;
  /** Called after a fetch that found refs other than the last one (or the first refs of a mirror). */
  onChange(source: MirrorSource): void;
}

const REFSPECS = ["+refs/heads/*:refs/heads/*", "+refs/pull/*/head:refs/pull/*/head"];

interface Mirror {
  dir: string;
  snapshot?: RefSnapshot;
  /** How the last fetch that finished failed; undefined after one that worked, or before any. */
  failure?: FetchFailure;
  /** The fetch under way or last finished. */
  running: Promise<RefSnapshot>;
  /** A fetch waiting for the running one: later callers share it. */
  queued?: Promise<RefSnapshot>;
}

async function sizeOf(path: string): Promise<number> {
  const stats = await lstat(path);
  if (!stats.isDirectory()) return stats.size;
  let total = stats.size;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}

export class Mirrors {
  private readonly mirrors = new Map<string, Mirror>();

  constructor(private readonly options: MirrorsOptions) {}

  /** The refs the last fetch saw when it worked; undefined before one, and after one that failed. */
  refs(source: MirrorSource): RefSnapshot | undefined {
    return this.mirrors.get(mirrorKey(source))?.snapshot;
  }

  /** How the last fetch that finished failed; undefined when it worked or none finished. */
  failure(source: MirrorSource): FetchFailure | undefined {
    return this.mirrors.get(mirrorKey(source))?.failure;
  }

  /** Resolves once no fetch runs or waits (after the controller's signal aborted them). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.mirrors.values()].map((mirror) => mirror.running));
  }

  /** The bare repository of `source` (fetched at least once for its refs to exist). */
  gitDir(source: MirrorSource): string {
    return this.mirror(source).dir;
  }

  /**
   * Fetches `source` into its mirror and returns its refs. Calls made while a fetch runs share the one
   * fetch that follows it, so a push announced during a fetch is seen.
   */
  refresh(source: MirrorSource): Promise<RefSnapshot> {
    const mirror = this.mirror(source);
    if (mirror.queued) return mirror.queued;
    const next = mirror.running
      .catch(() => undefined)
      .then(async () => {
        mirror.queued = undefined;
        try {
          const snapshot = await this.fetch(source, mirror);
          mirror.failure = undefined;
          return snapshot;
        } catch (error) {
          // What the repository holds is unknown now: a later fetch that works counts as news.
          mirror.snapshot = undefined;
          if (error instanceof FetchFailure) mirror.failure = error;
          throw error;
        }
      });
    mirror.queued = next;
    mirror.running = next;
    return next;
  }

  private mirror(source: MirrorSource): Mirror {
    const key = mirrorKey(source);
    let mirror = this.mirrors.get(key);
    if (!mirror) {
      const name = createHash("sha256").update(key).digest("hex").slice(0, 24);
      mirror = { dir: join(this.options.root, `${name}.git`), running: Promise.resolve(new Map()) };
      this.mirrors.set(key, mirror);
    }
    return mirror;
  }

  private async fetch(source: MirrorSource, mirror: Mirror): Promise<RefSnapshot> {
    const { url } = source;
    const judged = this.options.allow.judge(url, URL_FIELD);
    if (!judged.ok) throw new FetchFailure(FetchRefused, judged.message);
    const auth = this.authOf(source);
    const signal = AbortSignal.any([this.options.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    const options = { gitDir: mirror.dir, signal };
    if (!existsSync(mirror.dir)) {
      await mkdir(this.options.root, { recursive: true });
      await git(["init", "--quiet", "--bare", mirror.dir], "creating the mirror", { signal });
    }
    try {
      await git(
        ["fetch", "--quiet", "--prune", "--no-tags", judged.source, ...REFSPECS],
        `git fetch ${url}`,
        { ...options, ...(auth && { env: authEnvironment(auth) }) },
      );
    } catch (error) {
      if (this.options.signal.aborted) throw error;
      if (signal.aborted) {
        throw new FetchFailure(
          FetchFailed,
          `git fetch ${url} took longer than ${this.options.timeoutMs} ms; check that the repository answers, or raise --build-timeout`,
        );
      }
      throw fetchError(
        source,
        redact(error instanceof Error ? error.message : String(error), auth?.secrets ?? []),
      );
    }
    const size = await sizeOf(mirror.dir);
    if (size > this.options.maxBytes) {
      await rm(mirror.dir, { recursive: true, force: true });
      throw new FetchFailure(
        FetchFailed,
        `the repository ${url} takes ${sizeText(size)} on disk, more than the server's limit of ${sizeText(this.options.maxBytes)}; build from a smaller repository or start the server with a larger --git-max-clone-size`,
      );
    }
    const listing = await git(
      ["for-each-ref", "--format=%(objectname) %(committerdate:unix) %(refname)", "refs/heads", "refs/pull"],
      "listing refs",
      options,
    );
    const snapshot = new Map<string, RefHead>();
    for (const line of listing.split("\n")) {
      const [commit, time, ref] = line.split(" ");
      if (commit && time && ref) snapshot.set(ref, { commit, time: Number(time) });
    }
    const changed = !sameRefs(mirror.snapshot, snapshot);
    mirror.snapshot = snapshot;
    if (changed) this.options.onChange(source);
    return snapshot;
  }

  /** The header the credentials `source` names make, read from the file now; undefined without a reference. */
  private authOf(source: MirrorSource): FetchAuth | undefined {
    const ref = source.credentialsRef;
    if (!ref) return undefined;
    const found = this.options.credentials.lookup({ credentialsRef: ref }, GIT_FIELD, { inline: false });
    if (!found.ok) throw new FetchFailure(FetchCredentialsNotFound, found.message);
    const auth = fetchAuthOf(found.credentials ?? {});
    if ("problem" in auth) {
      throw new FetchFailure(
        FetchCredentialsNotFound,
        `${GIT_FIELD}.credentialsRef names credentials ${describeRef(ref)} of the ${CREDENTIALS_FLAG} file, but ${auth.problem}`,
      );
    }
    return auth;
  }
}

/** One mirror per repository and credentials reference. */
export function mirrorKey(source: MirrorSource): string {
  const repository = repositoryKey(source.url) ?? source.url;
  const ref = source.credentialsRef;
  return ref ? `${repository}\0${ref.group}/${ref.namespace}/${ref.name}` : repository;
}

/** A failed `git fetch` as a sentence: refused credentials named by reference, never by value. */
function fetchError(source: MirrorSource, detail: string): FetchFailure {
  const ref = source.credentialsRef;
  if (!AUTHENTICATION_ERROR.test(detail)) {
    return new FetchFailure(
      FetchFailed,
      `cannot fetch the repository: ${detail}; check ${URL_FIELD} and that the server can reach it`,
    );
  }
  if (!ref) {
    return new FetchFailure(
      FetchAuthenticationFailed,
      `${source.url} asks for credentials: ${detail}; name an entry of the server's ${CREDENTIALS_FLAG} file in ${GIT_FIELD}.credentialsRef`,
    );
  }
  return new FetchFailure(
    FetchAuthenticationFailed,
    `the git server refused the credentials ${GIT_FIELD}.credentialsRef names (${describeRef(ref)}) when fetching ${source.url}: ${detail}; update that entry of the ${CREDENTIALS_FLAG} file (it is read again when it changes)`,
  );
}

function sameRefs(before: RefSnapshot | undefined, after: RefSnapshot): boolean {
  if (before?.size !== after.size) return false;
  for (const [ref, head] of after) if (before.get(ref)?.commit !== head.commit) return false;
  return true;
}

/** Why a build or a fetch finds no `branch`: the branches the repository has, and the fix. */
export function missingBranch(branch: string, url: string, refs: RefSnapshot): string {
  const heads = "refs/heads/";
  const branches = [...refs.keys()]
    .filter((ref) => ref.startsWith(heads))
    .map((ref) => ref.slice(heads.length));
  return `branch "${branch}" does not exist in ${url} (it has ${branches.length > 0 ? branches.join(", ") : "no branches"}); push it, or set spec.source.git.triggers.productionBranch to an existing branch`;
}

/** The full ref of a branch name: `refs/...` as written, else `refs/heads/<branch>`. */
export function branchRef(branch: string): string {
  return branch.startsWith("refs/") ? branch : `refs/heads/${branch}`;
}
