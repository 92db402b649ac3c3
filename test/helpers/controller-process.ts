// `exampledev-controller` (controller/main.ts through ts-node) as a process against a kube-apiserver, the way
// a Deployment's replicas run it, and bounded waits for what it does.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

const REPO = path.resolve(__dirname, "../..");

export interface ControllerProcess {
  child: ChildProcess;
  /** Its stdout and stderr so far (pino JSON lines). */
  log(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Started with no poll of tags or git and `args` after the kubeconfig; the caller kills it. */
export function spawnController(
  kubeconfig: string,
  args: string[] = [],
  env: Record<string, string> = {},
): ControllerProcess {
  const child = spawn(
    process.execPath,
    [
      ...["-r", "ts-node/register", "controller/main.ts", "--kubeconfig", kubeconfig],
      ...["--tag-poll-interval", "0", "--git-poll-interval", "0", ...args],
    ],
    {
      cwd: REPO,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, log: () => log, exited };
}

/** Polls `check` every 100 ms until it returns a value; fails after `timeoutMs`, naming `what`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Resolves once the replica answers `healthUrl` (its probes listen before it takes part in the election);
 * throws with the replica's log if it exits first, as it does when its port was taken meanwhile.
 */
export async function serving(replica: ControllerProcess, healthUrl: string): Promise<void> {
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  replica.exited.then((ended) => {
    exit = ended;
  });
  await until(`the controller to serve ${healthUrl}`, async () => {
    if (exit)
      throw new Error(
        `the controller exited (${exit.signal ?? exit.code}) before serving ${healthUrl}:\n${replica.log()}`,
      );
    return fetch(healthUrl).then(
      () => true,
      () => undefined,
    );
  });
}

/** `count` distinct loopback ports nothing listens on now (for a flag that takes a port number, not 0). */
export async function freePorts(count: number): Promise<number[]> {
  // All held open at once: a port closed and asked for again may come back.
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** The pid in a Lease's holderIdentity (`hostname_pid_random`). */
export const pidOf = (identity: string) => Number(/_(\d+)_[0-9a-f]+$/.exec(identity)?.[1]);
