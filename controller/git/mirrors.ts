// One bare mirror per repository, under the server's data directory, shared by every Service that names
// the repository: fetched incrementally (branches and GitHub-style pull-request heads), one fetch at a
// time per repository, and bounded in size (a mirror over the cap is removed and the fetch fails).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { BuildFailure, sizeText } from "./failure";
import { git } from "./run";
import { type GitAllowList, repositoryKey, URL_FIELD } from "./url";

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
  /** Called after a fetch that found refs other than the last one (or the first refs of a mirror). */
  onChange(url: string): void;
}

const REFSPECS = ["+refs/heads/*:refs/heads/*", "+refs/pull/*/head:refs/pull/*/head"];

interface Mirror {
  dir: string;
  snapshot?: RefSnapshot;
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

  /** The refs the last successful fetch of `url` saw; undefined before one. */
  refs(url: string): RefSnapshot | undefined {
    return this.mirrors.get(repositoryKey(url) ?? url)?.snapshot;
  }

  /** Resolves once no fetch runs or waits (after the controller's signal aborted them). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.mirrors.values()].map((mirror) => mirror.running));
  }

  /** The bare repository of `url` (fetched at least once for its refs to exist). */
  gitDir(url: string): string {
    return this.mirror(url).dir;
  }

  /**
   * Fetches `url` into its mirror and returns its refs. Calls made while a fetch runs share the one fetch
   * that follows it, so a push announced during a fetch is seen.
   */
  refresh(url: string): Promise<RefSnapshot> {
    const mirror = this.mirror(url);
    if (mirror.queued) return mirror.queued;
    const next = mirror.running
      .catch(() => undefined)
      .then(async () => {
        mirror.queued = undefined;
        try {
          return await this.fetch(url, mirror);
        } catch (error) {
          // What the repository holds is unknown now: a later fetch that works counts as news.
          mirror.snapshot = undefined;
          throw error;
        }
      });
    mirror.queued = next;
    mirror.running = next;
    return next;
  }

  private mirror(url: string): Mirror {
    const key = repositoryKey(url) ?? url;
    let mirror = this.mirrors.get(key);
    if (!mirror) {
      const name = createHash("sha256").update(key).digest("hex").slice(0, 24);
      mirror = { dir: join(this.options.root, `${name}.git`), running: Promise.resolve(new Map()) };
      this.mirrors.set(key, mirror);
    }
    return mirror;
  }

  private async fetch(url: string, mirror: Mirror): Promise<RefSnapshot> {
    const judged = this.options.allow.judge(url, URL_FIELD);
    if (!judged.ok) throw new BuildFailure(judged.message);
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
        options,
      );
    } catch (error) {
      if (this.options.signal.aborted) throw error;
      if (signal.aborted) {
        throw new BuildFailure(
          `git fetch ${url} took longer than ${this.options.timeoutMs} ms; check that the repository answers, or raise --build-timeout`,
        );
      }
      const detail = error instanceof Error ? error.message : String(error);
      throw new BuildFailure(
        `cannot fetch the repository: ${detail}; check spec.source.git.url and that the server can reach it`,
      );
    }
    const size = await sizeOf(mirror.dir);
    if (size > this.options.maxBytes) {
      await rm(mirror.dir, { recursive: true, force: true });
      throw new BuildFailure(
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
    if (changed) this.options.onChange(url);
    return snapshot;
  }
}

function sameRefs(before: RefSnapshot | undefined, after: RefSnapshot): boolean {
  if (before?.size !== after.size) return false;
  for (const [ref, head] of after) if (before.get(ref)?.commit !== head.commit) return false;
  return true;
}

/** The full ref of a branch name: `refs/...` as written, else `refs/heads/<branch>`. */
export function branchRef(branch: string): string {
  return branch.startsWith("refs/") ? branch : `refs/heads/${branch}`;
}
