import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterEach } from "vitest";

const REPO_ROOT = resolve(__dirname, "../..");

export interface ServerProcess {
  child: ChildProcess;
  /** Resolves with the base URL once the server listens; rejects if it exits first. */
  url: Promise<string>;
  stdout: () => string;
  stderr: () => string;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/**
 * `node server/main.ts <args>` (TypeScript through ts-node) with the Node that runs the tests, on a free
 * loopback port, in memory unless `args` name `--data`. Killed after each test.
 */
export function spawnServer(args: string[] = [], env: Record<string, string> = {}): ServerProcess {
  const storage = args.includes("--data") ? [] : ["--memory"];
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register", "server/main.ts", "--port", "0", ...storage, "--log-level", "warn", ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = new Promise<string>((resolveUrl, reject) => {
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)));
  });
  url.catch(() => {});
  return { child, url, stdout: () => stdout, stderr: () => stderr };
}
