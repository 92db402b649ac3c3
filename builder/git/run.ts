// The machine's `git`, run without a shell and without any user or system configuration: no prompt for
// credentials, no hooks, and only the transports a build source may use (ext::, fd:: and the like refused).
import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { BuildFailure } from "./failure";

/** `-c` settings put before every git command. */
const SAFE_CONFIG = [
  "protocol.allow=never",
  "protocol.file.allow=always",
  "protocol.http.allow=always",
  "protocol.https.allow=always",
  "protocol.git.allow=always",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "credential.helper=",
].flatMap((setting) => ["-c", setting]);

const GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: tmpdir(),
  LANG: "C",
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "/bin/false",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** How much of stderr a failure quotes. */
const STDERR_TAIL = 1_000;
/** Output read into memory (ref lists, diffs); archives are piped, never read whole. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface GitOptions {
  /** `--git-dir`: the bare mirror the command works on. */
  gitDir?: string;
  /** Kills git (SIGKILL) when aborted; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Added to the safe environment: settings that must stay off the command line (`fetch-auth.ts`). */
  env?: NodeJS.ProcessEnv;
}

/** Starts git with the safe settings; stdout piped, stderr kept for the failure message. */
export function spawnGit(args: readonly string[], options: GitOptions = {}): ChildProcess {
  const prefix = options.gitDir ? ["--git-dir", options.gitDir] : [];
  return spawn("git", [...SAFE_CONFIG, ...prefix, ...args], {
    env: { ...GIT_ENV, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so a kill reaches the helpers it starts too (git-remote-http holds the pipes
    // of a fetch from a host that never answers: killing git alone left the fetch, and a stop, waiting).
    detached: true,
  });
}

/** Kills the process and its process group (git's helpers), or the process alone when it leads none. */
export function killTree(child: ChildProcess): void {
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, "SIGKILL");
      return;
    } catch {
      // Not a group leader (not started by spawnGit), or gone already.
    }
  }
  child.kill("SIGKILL");
}

/** Resolves when the process exits with code 0; rejects with its stderr's tail otherwise. */
export function completion(child: ChildProcess, what: string, signal?: AbortSignal): Promise<void> {
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  return new Promise((resolve, reject) => {
    const abort = () => killTree(child);
    signal?.addEventListener("abort", abort, { once: true });
    child.once("error", (error) => reject(new BuildFailure(`${what}: ${error.message}`)));
    child.once("close", (code, killedBy) => {
      signal?.removeEventListener("abort", abort);
      if (signal?.aborted) reject(signal.reason);
      else if (code === 0) resolve();
      else reject(new BuildFailure(`${what} failed (${code ?? killedBy}): ${stderr.trim()}`));
    });
  });
}

/** Runs git and returns its stdout as text. */
export async function git(args: readonly string[], what: string, options: GitOptions = {}): Promise<string> {
  options.signal?.throwIfAborted();
  const child = spawnGit(args, options);
  const chunks: Buffer[] = [];
  let size = 0;
  child.stdout?.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_OUTPUT_BYTES) killTree(child);
    else chunks.push(chunk);
  });
  await completion(child, what, options.signal);
  return Buffer.concat(chunks).toString("utf8");
}
