// A commit's files on disk, exported from the mirror with `git archive` (no `.git`, nothing checked out in
// the mirror itself), and the checks that keep `rootDir` inside the repository.
import { spawn } from "node:child_process";
import { posix } from "node:path";
import { pipeline } from "node:stream";
import { BuildFailure } from "./failure";
import { completion, git, spawnGit } from "./run";

const ROOT_DIR_FIELD = "spec.source.git.build.rootDir";

/**
 * `rootDir` as a path inside the repository (`.` for the top): refused when it climbs out (`..`, an
 * absolute path), when it or a directory on its way is a symlink, or when the commit has no such directory.
 */
export async function rootDirOf(
  gitDir: string,
  commit: string,
  rootDir: string,
  signal: AbortSignal,
): Promise<string> {
  const path = posix.normalize(rootDir).replace(/\/+$/, "") || ".";
  if (posix.isAbsolute(path) || path === ".." || path.startsWith("../")) {
    throw new BuildFailure(
      `${ROOT_DIR_FIELD} "${rootDir}" leads outside the repository; nothing outside it is packaged: use a directory inside the repository, such as "." or "app"`,
    );
  }
  if (path === ".") return path;
  const parts = path.split("/");
  for (let depth = 1; depth <= parts.length; depth++) {
    const prefix = parts.slice(0, depth).join("/");
    const listing = await git(["ls-tree", "-z", commit, "--", prefix], "reading the tree", {
      gitDir,
      signal,
    });
    const [mode, type] = listing.split(/[ \t]/);
    if (!mode) {
      throw new BuildFailure(
        `${ROOT_DIR_FIELD} "${rootDir}": commit ${commit.slice(0, 12)} has no ${prefix}; name a directory of the repository`,
      );
    }
    if (mode === "120000") {
      throw new BuildFailure(
        `${ROOT_DIR_FIELD} "${rootDir}": ${prefix} is a symlink, which could lead outside the repository; nothing is packaged: name the real directory`,
      );
    }
    if (type !== "tree") {
      throw new BuildFailure(
        `${ROOT_DIR_FIELD} "${rootDir}": ${prefix} is not a directory; name a directory`,
      );
    }
  }
  return path;
}

/** Writes the tree `treeish` (a commit, or `<commit>:<dir>`) into the existing directory `dest`. */
export async function exportTree(
  gitDir: string,
  treeish: string,
  dest: string,
  signal: AbortSignal,
): Promise<void> {
  const archive = spawnGit(["archive", "--format=tar", treeish], { gitDir });
  // The system tar unpacks what git wrote; git's archives hold no absolute or `..` paths.
  const unpack = spawn("tar", ["-x", "--no-same-owner", "-C", dest], {
    stdio: ["pipe", "ignore", "pipe"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C" },
  });
  // pipeline, not pipe: when tar ends first (it failed, or the build was stopped), git's next write meets a
  // closed pipe. pipeline takes that EPIPE, which unhandled would stop the server (tar's exit says what went
  // wrong), and closes git's end, so git ends too instead of blocking on a full pipe.
  if (archive.stdout && unpack.stdin) pipeline(archive.stdout, unpack.stdin, () => undefined);
  await Promise.all([
    completion(archive, "git archive", signal),
    completion(unpack, "unpacking the archive", signal),
  ]);
}
