// Watches under load: Proxy creates per second while 0, 100 and 1,000 watches read every event, and the
// server's memory while 100 watches that never read meet 40 writes of 900 kB. The watches are held by a
// child process (`watch-clients.ts`) on raw sockets, so the figures are the server's cost, not the client's.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  batch,
  body,
  CONCURRENCY,
  pathOf,
  request,
  rssMb,
  type ServerProcess,
  spawnServer,
  stop,
} from "./server-load";
import { round } from "./stats";

export const WATCH_COUNTS = [0, 100, 1_000] as const;
const CREATES = 3_000;
const STALLED = 100;
const LARGE_WRITES = 40;
const LARGE_BYTES = 900_000;
/** How long after the last large write the stalled watches may take to be closed. */
const CLOSE_WAIT_MS = 15_000;

export interface FanOutRow {
  watches: number;
  createsPerSecond: number;
  /** Events the watches received, and how often the server ended one (the client watched again). */
  eventsDelivered: number;
  endedByServer: number;
  refused: number;
}

export interface StalledFigures {
  watches: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  /** Stalled watches the server closed, and the longest time one took from falling behind (its log). */
  closed: number;
  slowestCloseMs: number | undefined;
}

export interface WatchRound {
  fanOut: FanOutRow[];
  stalled: StalledFigures;
}

export interface WatchCounts {
  opened: number;
  events: number;
  endedByServer: number;
  refused: number;
  /** Watches that ended with a 410 Expired ERROR event (not resumed), or with another ERROR event. */
  expired: number;
  errors: number;
}

interface Clients {
  child: ChildProcess;
  /** The counts so far; the clients go on watching. */
  progress: () => Promise<WatchCounts>;
  /** Stops the clients: their final counts. */
  counts: () => Promise<WatchCounts>;
}

/** The CA and bearer token a server over TLS wants (kube-apiserver); none for the local server. */
export interface WatchCredentials {
  ca?: string;
  token?: string;
}

export async function startClients(
  url: string,
  count: number,
  mode: "read" | "stall",
  watchPath = pathOf("Proxy"),
  credentials: WatchCredentials = {},
  /** Where the first watches start; default the server's "now". */
  startVersion?: string,
): Promise<Clients> {
  const env = {
    ...process.env,
    ...(credentials.ca !== undefined && { BENCH_WATCH_CA: credentials.ca }),
    ...(credentials.token !== undefined && { BENCH_WATCH_TOKEN: credentials.token }),
  };
  const child = spawn(
    process.execPath,
    [
      path.join(__dirname, "watch-clients.js"),
      url,
      String(count),
      mode,
      watchPath,
      ...(startVersion === undefined ? [] : [startVersion]),
    ],
    { stdio: ["ignore", "pipe", "inherit"], env },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  while (!output.includes("ready\n")) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `the watch clients exited (${child.exitCode ?? child.signalCode}) before they were ready`,
      );
    await sleep(50);
  }
  const lines = () => output.split("\n").length;
  return {
    child,
    progress: async () => {
      const before = lines();
      child.kill("SIGUSR2");
      while (lines() === before) await sleep(10);
      return JSON.parse(output.split("\n").at(-2) ?? "{}");
    },
    counts: async () => {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
      return JSON.parse(output.split("\n").at(-2) ?? "{}");
    },
  };
}

async function createsWhileWatched(packageRoot: string, watches: number): Promise<FanOutRow> {
  const server = await spawnServer(packageRoot, "memory");
  try {
    const clients = watches > 0 ? await startClients(server.url, watches, "read") : undefined;
    const result = await batch(0, CREATES, CONCURRENCY, async (i) => {
      await request(server.pool, "POST", pathOf("Proxy"), body("Proxy", `watched-${i}`, {}));
    });
    const counts = (await clients?.counts()) ?? { events: 0, endedByServer: 0, refused: 0 };
    return {
      watches,
      createsPerSecond: round(CREATES / (result.ms / 1000), 0),
      eventsDelivered: counts.events,
      endedByServer: counts.endedByServer,
      refused: counts.refused,
    };
  } finally {
    await stop(server);
  }
}

/** The server's log lines that say it closed a watch that fell behind, with how long its client took nothing. */
function closesLogged(server: ServerProcess): number[] {
  const delays: number[] = [];
  for (const line of server.output().split("\n")) {
    if (!line.includes('"watch closed: the client fell behind"')) continue;
    delays.push(Number((JSON.parse(line) as { behindMs?: number }).behindMs ?? Number.NaN));
  }
  return delays;
}

async function stalledWatches(packageRoot: string): Promise<StalledFigures> {
  const server = await spawnServer(packageRoot, "memory", "info");
  try {
    const clients = await startClients(server.url, STALLED, "stall");
    const rssBeforeMb = rssMb(server.child.pid);
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => {
      rssPeakMb = Math.max(rssPeakMb, rssMb(server.child.pid));
    }, 100);
    const seed = "x".repeat(LARGE_BYTES);
    for (let i = 0; i < LARGE_WRITES; i++) {
      const spec = { telemetry: { accessLogs: { json: { seed, i } } } };
      await request(server.pool, "POST", pathOf("Proxy"), body("Proxy", `large-${i}`, spec));
    }
    const deadline = Date.now() + CLOSE_WAIT_MS;
    while (closesLogged(server).length < STALLED && Date.now() < deadline) await sleep(200);
    clearInterval(sampler);
    const delays = closesLogged(server);
    const rssAfterMb = rssMb(server.child.pid);
    await clients.counts();
    return {
      watches: STALLED,
      rssBeforeMb,
      rssPeakMb,
      rssAfterMb,
      closed: delays.length,
      slowestCloseMs: delays.length > 0 ? Math.max(...delays) : undefined,
    };
  } finally {
    await stop(server);
  }
}

/** One round: a fresh server per row, the rows in order, then the stalled watches. */
export async function measureWatches(packageRoot: string): Promise<WatchRound> {
  const fanOut: FanOutRow[] = [];
  for (const watches of WATCH_COUNTS) {
    const row = await createsWhileWatched(packageRoot, watches);
    console.error(`    ${watches} reading watches: ${row.createsPerSecond} creates/s`);
    fanOut.push(row);
  }
  const stalled = await stalledWatches(packageRoot);
  console.error(`    ${STALLED} stalled watches: RSS peak ${stalled.rssPeakMb} MB, ${stalled.closed} closed`);
  return { fanOut, stalled };
}
