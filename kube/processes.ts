import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
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

export function start(command: string, args: string[], log: string): Started {
  const name = path.basename(command);
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const out = createWriteStream(log);
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  // A process that exits without close() (an uncaught error, process.exit) must not leave servers behind.
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  const exited = new Promise<never>((_, reject) => {
    child.once("error", reject);
    child.once("exit", async (code, signal) => {
      process.off("exit", kill);
      reject(new Error(`${name} exited (${signal ?? code}):\n${await logTail(log)}`));
    });
  });
  exited.catch(() => {});
  return { name, child, log, exited };
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
