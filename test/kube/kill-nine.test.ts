import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * `npm run kube -- --dir <dir>` killed with -9 (no handler of its own runs): etcd, kube-apiserver and
 * kube-controller-manager die with it (their parent-death signal, `setpriv --pdeathsig`), or, where that
 * cannot be set (EXAMPLEDEV_KUBE_NO_PDEATHSIG=1 here), the next start with the same directory finds them
 * (its pids file) and stops them; either way that start serves again on the same ports.
 */

const REPO = path.resolve(__dirname, "../..");
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function startKube(dir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["-r", "ts-node/register", "kube/main.ts", "--dir", dir], {
    cwd: REPO,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", () => {
      if (/^kubeconfig: /m.test(output)) resolve();
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`npm run kube exited (${signal ?? code}):\n${output}`)),
    );
  });
  ready.catch(() => {});
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, ready, exited, output: () => output };
}

async function serverPids(dir: string): Promise<number[]> {
  const text = await readFile(path.join(dir, "processes.pids"), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => Number(line.split(" ")[0]));
}

/** Running (a zombie waiting for a reaper holds no port and counts as gone). */
const alive = (pid: number) => {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};

describe("npm run kube after its own kill -9", () => {
  it("takes its servers with it, and starts again on the same directory", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kube-kill9-"));
    dirs.push(dir);
    const first = startKube(dir);
    await first.ready;
    const pids = await serverPids(dir);
    expect(pids).toHaveLength(3);
    first.child.kill("SIGKILL");
    await first.exited;
    // Reaped by init once the kernel killed them: gone from /proc.
    await expect.poll(() => pids.filter(alive), { timeout: 30_000 }).toEqual([]);
    const second = startKube(dir);
    await second.ready;
    second.child.kill("SIGTERM");
    await second.exited;
  }, 600_000);

  it("stops at the next start what a kill -9 left running where no parent-death signal is set", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kube-kill9-"));
    dirs.push(dir);
    const first = startKube(dir, { EXAMPLEDEV_KUBE_NO_PDEATHSIG: "1" });
    await first.ready;
    const pids = await serverPids(dir);
    first.child.kill("SIGKILL");
    await first.exited;
    // Left behind, still holding their ports.
    expect(pids.filter(alive)).toHaveLength(3);
    const second = startKube(dir, { EXAMPLEDEV_KUBE_NO_PDEATHSIG: "1" });
    await second.ready;
    expect(pids.filter(alive)).toEqual([]);
    second.child.kill("SIGTERM");
    await second.exited;
  }, 600_000);
});
