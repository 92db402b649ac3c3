// Real git repositories in temp dirs for the git-source tests: files committed with the machine's `git`,
// branches, symlinks and GitHub-style pull-request refs (`refs/pull/<n>/head`).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** Content of a file, or a symlink and its target. */
export type FileContent = string | { symlink: string } | { content: string; executable: true };

export interface CommitOptions {
  /** Committer and author date, e.g. `2020-01-01T00:00:00Z` (an old commit for ttl tests). */
  date?: string;
  message?: string;
}

// No user or system config, a fixed identity: the tests behave alike on every machine.
const GIT_ENV = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.dev",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.dev",
};

export class TestRepo {
  /** `file://` URL of the repository. */
  readonly url: string;

  private constructor(readonly dir: string) {
    this.url = pathToFileURL(dir).href;
  }

  /** A new repository whose first branch is `branch` (default `main`), with no commits. */
  static create(prefix = "repo", branch = "main"): TestRepo {
    const repo = new TestRepo(mkdtempSync(join(tmpdir(), `exampledev-git-${prefix}-`)));
    repo.git("init", "--quiet", `--initial-branch=${branch}`);
    return repo;
  }

  git(...args: string[]): string {
    return this.gitWith({}, ...args);
  }

  /** Writes (or, with `null`, deletes) the files, commits them all on the current branch; returns the commit. */
  commit(files: Record<string, FileContent | null>, options: CommitOptions = {}): string {
    for (const [path, content] of Object.entries(files)) {
      const target = join(this.dir, path);
      rmSync(target, { force: true, recursive: true });
      if (content === null) continue;
      mkdirSync(dirname(target), { recursive: true });
      if (typeof content === "string") writeFileSync(target, content);
      else if ("symlink" in content) symlinkSync(content.symlink, target);
      else writeFileSync(target, content.content, { mode: 0o755 });
    }
    this.git("add", "--all");
    const env: Record<string, string> = options.date
      ? { GIT_AUTHOR_DATE: options.date, GIT_COMMITTER_DATE: options.date }
      : {};
    this.gitWith(env, "commit", "--quiet", "--allow-empty", "-m", options.message ?? "change");
    return this.head();
  }

  /** The commit a ref (default HEAD) points at. */
  head(ref = "HEAD"): string {
    return this.git("rev-parse", ref).trim();
  }

  /** Switches to `branch`, creating it from the current commit when it does not exist. */
  checkout(branch: string): void {
    const exists = this.git("branch", "--list", branch).trim() !== "";
    this.git("checkout", "--quiet", ...(exists ? [] : ["-b"]), branch);
  }

  deleteBranch(branch: string): void {
    this.git("branch", "--quiet", "-D", branch);
  }

  /** Points `refs/pull/<n>/head` at a commit, as GitHub does for an open pull request. */
  pullRequest(number: number, commit: string): void {
    this.git("update-ref", `refs/pull/${number}/head`, commit);
  }

  closePullRequest(number: number): void {
    this.git("update-ref", "-d", `refs/pull/${number}/head`);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private gitWith(env: Record<string, string>, ...args: string[]): string {
    return execFileSync("git", args, { cwd: this.dir, env: { ...GIT_ENV, ...env }, encoding: "utf8" });
  }
}

export interface GitDaemon {
  /** `git://127.0.0.1:<port>/<dir name of the repository>` */
  url(repo: TestRepo): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

/** `git daemon` on a loopback port serving every repository under the temp dir (the git:// protocol). */
export async function startGitDaemon(): Promise<GitDaemon> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    "git",
    [
      "daemon",
      "--export-all",
      "--reuseaddr",
      "--listen=127.0.0.1",
      `--port=${port}`,
      `--base-path=${tmpdir()}`,
      tmpdir(),
    ],
    { env: GIT_ENV, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    log = (log + chunk).slice(-2_000);
  });
  // Ready once it accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ready = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ready) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`git daemon did not start: ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: (repo) => `git://127.0.0.1:${port}/${repo.dir.slice(tmpdir().length + 1)}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
