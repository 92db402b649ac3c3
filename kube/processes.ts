import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, appendFileSync, constants, createWriteStream } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { type Agent, fetch } from "undici";

/** The processes of the Kubernetes environment (kube/env.ts): started with a log file, polled, stopped. */

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
// Often: a start waits for two processes in turn, and each answers well within a second.
const POLL_MS = 100;

/**
 * Free loopback ports, distinct: each is held until all are found (the race until the processes bind them
 * is accepted).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export interface Started {
  name: string;
  child: ChildProcess;
  log: string;
  /** Rejects when the process exits; never resolves. */
  exited: Promise<never>;
}

/** The last lines of a process's log, for an error that says why it stopped. */
async function logTail(log: string): Promise<string> {
  return (await readFile(log, "utf8").catch(() => "")).split("\n").slice(-20).join("\n");
}

/**
 * util-linux's `setpriv --pdeathsig KILL` execs the command with a parent-death signal: the kernel kills it
 * when this process dies, kill -9 included (no `exit` handler runs then). It replaces itself by the command,
 * so the child's pid is the server's. Where it is missing, the pids file (below) is the only way back.
 */
const SETPRIV = "/usr/bin/setpriv";
function parentDeathWrapper(): string[] {
  if (process.env.EXAMPLEDEV_KUBE_NO_PDEATHSIG === "1") return [];
  try {
    accessSync(SETPRIV, constants.X_OK);
    return [SETPRIV, "--pdeathsig", "KILL", "--"];
  } catch {
    return [];
  }
}

/** The file in an environment's directory listing the processes started for it (`<pid> <name>` lines). */
const PIDS_FILE = "processes.pids";

/**
 * Stops what a previous start with the same directory left running (its Node process killed with -9 where
 * no parent-death signal could be set): each pid of the pids file whose command line still names `dir`
 * (a pid the system gave to another process since is left alone), with SIGKILL, waiting until it is gone.
 * Returns how many it stopped.
 */
export async function stopLeftovers(dir: string): Promise<number> {
  const file = path.join(dir, PIDS_FILE);
  const text = await readFile(file, "utf8").catch(() => "");
  let stopped = 0;
  for (const line of text.split("\n")) {
    const pid = Number(line.split(" ")[0]);
    if (!Number.isInteger(pid) || pid <= 1) continue;
    const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (!commandLine.includes(dir)) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      continue;
    }
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    // Gone, or a zombie (its parent, if any, reaps it): either way its ports are free.
    while (
      Date.now() < deadline &&
      /^State:\s+[^Z]/m.test(await readFile(`/proc/${pid}/status`, "utf8").catch(() => ""))
    )
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    stopped++;
  }
  await writeFile(file, "", { mode: 0o600 });
  return stopped;
}

/** Starts `command` with its output appended to `log`; `name` (default: the command's) names it in errors. */
export function start(command: string, args: string[], log: string, name = path.basename(command)): Started {
  const [wrapper, ...wrapperArgs] = parentDeathWrapper();
  const child =
    wrapper === undefined
      ? spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
      : spawn(wrapper, [...wrapperArgs, command, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  // Kept beside the log, in the environment's directory, for stopLeftovers at its next start.
  if (child.pid !== undefined)
    appendFileSync(path.join(path.dirname(log), PIDS_FILE), `${child.pid} ${name}\n`);
  // Appended: a process restarted (after a fault, or a kept directory's next start) keeps its earlier lines.
  const out = createWriteStream(log, { flags: "a" });
  // Both pipes write into one file: neither may end it (the first to end would, and the other's next write
  // would throw ERR_STREAM_WRITE_AFTER_END). The file ends once the child has closed both ('close').
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });
  // A log that cannot be written (a full disk) must not take this process down with an unhandled error.
  out.on("error", () => {});
  const written = new Promise<void>((resolve) => {
    child.once("close", () => out.end(resolve));
    // spawn failed (no such binary): no 'close' follows the 'error' when no pipe was opened.
    child.once("error", () => out.end(resolve));
  });
  // A process that exits without close() (an uncaught error, process.exit) must not leave servers behind.
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  const exited = new Promise<never>((_, reject) => {
    child.once("error", (error) => {
      process.off("exit", kill);
      reject(new Error(`${name} could not be started (${command}): ${error.message}`));
    });
    child.once("exit", async (code, signal) => {
      process.off("exit", kill);
      // Its last words are in the log only once both pipes are drained into it.
      await written;
      const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
      reject(new Error(`${name} exited (${how}); the last lines of ${log}:\n${await logTail(log)}`));
    });
  });
  exited.catch(() => {});
  return { name, child, log, exited };
}

/**
 * A process of the environment that faults can kill and restart as the same member (same arguments, same
 * log, same data): `current` is its running incarnation.
 */
export interface Supervised {
  name: string;
  log: string;
  current: Started;
  /** kill -9, resolved once it is gone. */
  kill(): Promise<void>;
  /** Starts it again as it was started (after kill()); does not wait for it to be healthy. */
  restart(): void;
  /** Stops it (SIGTERM, then SIGKILL after STOP_TIMEOUT_MS). */
  stop(): Promise<void>;
}

export function supervise(name: string, command: string, args: string[], log: string): Supervised {
  const supervised: Supervised = {
    name,
    log,
    current: start(command, args, log, name),
    async kill() {
      const { child } = supervised.current;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGKILL");
      await gone;
    },
    restart() {
      supervised.current = start(command, args, log, name);
    },
    stop: () => stop(supervised.current.child),
  };
  return supervised;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await gone;
  clearTimeout(timer);
}

/** Polls a health endpoint of `started` until it answers 200; fails at once if the process exits. */
export async function waitUntilHealthy(
  started: Started,
  url: string,
  dispatcher: Agent,
  headers: Record<string, string> = {},
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no answer";
  while (Date.now() < deadline) {
    const answer = fetch(url, { dispatcher, headers })
      .then(async (response) => ({ status: response.status, body: await response.text() }))
      .catch((error: unknown) => ({ status: 0, body: String(error) }));
    const { status, body } = await Promise.race([answer, started.exited]);
    if (status === 200) return;
    last = `${status} ${body.slice(0, 500)}`;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const seconds = READY_TIMEOUT_MS / 1000;
  throw new Error(
    `${started.name} was not healthy after ${seconds}s: ${last}\n${await logTail(started.log)}`,
  );
}
