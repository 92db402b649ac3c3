// One build of a git source: fetch, find the branch's head, skip it when `triggers.paths` says so, export
// `rootDir` of the commit, run `build.command` when the server allows it, package one reproducible layer
// and push it with a manifest naming source, commit and branch. No container runs: `builder` is recorded.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import picomatch from "picomatch";
import type { GitSource } from "../../sdk/schema";
import { type Image, pushImage } from "../oci";
import { exportTree, rootDirOf } from "./checkout";
import { BuildFailure } from "./failure";
import type { KeyedLock } from "./keyed-lock";
import { packDirectory } from "./layer";
import { branchRef, type Mirrors, missingBranch } from "./mirrors";
import { git } from "./run";

/** Manifest annotations of a built bundle. */
export const BUILD_ANNOTATIONS = {
  source: "org.opencontainers.image.source",
  revision: "org.opencontainers.image.revision",
  branch: "dev.example.build.branch",
  builder: "dev.example.build.builder",
} as const;

export const BUNDLE_LAYER_TYPE = "application/vnd.exampledev.bundle.v1.tar+gzip";
const EMPTY_CONFIG = { mediaType: "application/vnd.oci.empty.v1+json", data: Buffer.from("{}") };

/** How much of a build command's output a failure quotes. */
const OUTPUT_TAIL = 1_500;

export interface BuildRequest {
  url: string;
  branch: string;
  source: GitSource;
  /** The commit the last successful build of this source built, for `triggers.paths`. */
  base?: string;
}

export interface BuildEnvironment {
  mirrors: Mirrors;
  /** Where checkouts are made (and removed). */
  workDir: string;
  /** `--build-commands`: whether `build.command` may run. */
  buildCommands: boolean;
  maxBytes: number;
  signal: AbortSignal;
  /** Pushes to one repository take turns. */
  pushes: KeyedLock;
  /** Called once the commit to build is known. */
  onCommit(commit: string): void;
}

export type BuildResult =
  | { kind: "built"; commit: string; digest: string }
  /** `triggers.paths` is set and the commit changed no matching path since `base`. */
  | { kind: "skipped"; commit: string };

/** Runs one build; a BuildFailure says what failed. */
export async function runBuild(request: BuildRequest, env: BuildEnvironment): Promise<BuildResult> {
  const { url, branch, source } = request;
  const refs = await env.mirrors.refresh(source);
  const head = refs.get(branchRef(branch));
  if (!head) throw new BuildFailure(missingBranch(branch, url, refs));
  const { commit } = head;
  env.onCommit(commit);
  const gitDir = env.mirrors.gitDir(source);
  const paths = source.triggers.paths;
  if (paths && paths.length > 0 && request.base && request.base !== commit) {
    if (!(await touchesPaths(gitDir, request.base, commit, paths, env.signal)))
      return { kind: "skipped", commit };
  }
  const rootDir = await rootDirOf(gitDir, commit, source.build.rootDir, env.signal);
  await mkdir(env.workDir, { recursive: true });
  const work = await mkdtemp(join(env.workDir, "build-"));
  try {
    const packaged = await checkout(gitDir, commit, rootDir, work, source, env);
    const layer = await packDirectory(packaged, `rootDir "${rootDir}"`, env.maxBytes);
    const image: Image = {
      config: EMPTY_CONFIG,
      layers: [{ mediaType: BUNDLE_LAYER_TYPE, data: layer.data }],
      annotations: {
        [BUILD_ANNOTATIONS.source]: url,
        [BUILD_ANNOTATIONS.revision]: commit,
        [BUILD_ANNOTATIONS.branch]: branch,
        ...(source.build.builder && { [BUILD_ANNOTATIONS.builder]: source.build.builder }),
      },
    };
    const { output } = source.build;
    const pushed = await env.pushes.run(output.repo, () => pushImage(output, image, { signal: env.signal }));
    if (!pushed.ok) throw new BuildFailure(pushed.message);
    return { kind: "built", commit, digest: pushed.digest };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Whether the commits between `base` and `commit` change a path matching one of the globs. */
async function touchesPaths(
  gitDir: string,
  base: string,
  commit: string,
  globs: readonly string[],
  signal: AbortSignal,
): Promise<boolean> {
  const known = await git(["cat-file", "-t", base], "looking up the last built commit", {
    gitDir,
    signal,
  }).catch(() => undefined);
  // History rewritten (the last built commit is gone): nothing to compare with, so build.
  if (known?.trim() !== "commit") return true;
  const diff = await git(["diff", "--name-only", "-z", "--no-renames", base, commit], "comparing commits", {
    gitDir,
    signal,
  });
  const matches = picomatch([...globs], { dot: true });
  return diff.split("\0").some((path) => path !== "" && matches(path));
}

/** Exports the commit and runs the build command; returns the directory to package. */
async function checkout(
  gitDir: string,
  commit: string,
  rootDir: string,
  work: string,
  source: GitSource,
  env: BuildEnvironment,
): Promise<string> {
  const command = source.build.command;
  if (!command || command.length === 0) {
    await exportTree(gitDir, rootDir === "." ? commit : `${commit}:${rootDir}`, work, env.signal);
    return work;
  }
  if (!env.buildCommands) {
    throw new BuildFailure("spec.source.git.build.command is set but the server runs no build commands");
  }
  await exportTree(gitDir, commit, work, env.signal);
  const dir = join(work, rootDir);
  await runCommand(command, dir, source, env.signal);
  // The command may have replaced rootDir with a symlink to elsewhere: package only what is inside.
  const real = await realpath(dir).catch(() => undefined);
  const rel = real === undefined ? undefined : relative(await realpath(work), real);
  if (rel === undefined || rel.startsWith("..")) {
    throw new BuildFailure(
      `after build.command, rootDir "${rootDir}" is missing or leads outside the checkout`,
    );
  }
  return dir;
}

/**
 * Runs `build.command` (argv, no shell) in `dir` with `build.env` and nothing of the server's own
 * environment but PATH, in its own process group so a timeout kills everything it started.
 */
function runCommand(
  command: readonly string[],
  dir: string,
  source: GitSource,
  signal: AbortSignal,
): Promise<void> {
  const [file = "", ...args] = command;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LANG: "C" };
  for (const variable of source.build.env ?? []) env[variable.name] = variable.value;
  signal.throwIfAborted();
  const child = spawn(file, args, { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_TAIL);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  signal.addEventListener("abort", killGroup, { once: true });
  const shown = JSON.stringify(command);
  return new Promise<void>((resolve, reject) => {
    child.once("error", (error) =>
      reject(new BuildFailure(`build.command ${shown} could not start: ${error.message}`)),
    );
    child.once("close", (code, killedBy) => {
      signal.removeEventListener("abort", killGroup);
      // Whatever it left running in its group goes too.
      killGroup();
      if (signal.aborted) reject(signal.reason);
      else if (code === 0) resolve();
      else {
        const tail = output.trim();
        reject(
          new BuildFailure(
            `build.command ${shown} failed (${code === null ? `killed by ${killedBy}` : `exit code ${code}`})${tail ? `; its output ends with: ${tail}` : ""}; fix the command or the repository and push a new commit`,
          ),
        );
      }
    });
  });
}
