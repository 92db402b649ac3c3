// The API server under load, as child processes (`dist/server/main.js`) so the load generator does not share
// their event loop: create, GET, list and paged-list throughput and latency with in-memory and with durable
// storage, the typed client against a raw undici Pool, the time of a full list of 10k, the servers' RSS.
// Both sides of each comparison run at the same time, in alternating chunks, so that load from elsewhere on
// the machine meets both alike; their ratio is the median of the per-chunk ratios.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Dispatcher, Pool } from "undici";
import { createClient } from "../sdk/client";
import { KINDS, type KindName } from "../sdk/schema";
import { median, percentile, round } from "./stats";

export interface LoadResult {
  requests: number;
  concurrency: number;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export type Storage = "memory" | "durable";

export interface StorageFigures {
  create: LoadResult;
  get: LoadResult;
  list100: LoadResult;
  pagedList: LoadResult;
  fullList10kMs: number;
  rssMb: number;
}

export interface ServerRound {
  memory: StorageFigures;
  durable: StorageFigures;
  /** Median over chunks of durable ÷ memory creates per second. */
  durableCreateOverMemory: number;
  client: { typed: LoadResult; raw: LoadResult; typedOverRaw: number };
}

export const OBJECTS = 10_000;
export const CONCURRENCY = 16;
/** How long a server may take to stop gracefully before the benchmark kills it (and says so). */
const STOP_WAIT_MS = 10_000;
const CHUNKS = 10;
const DIGEST = `sha256:${"ab".repeat(32)}`;
const REVISION_SPEC = {
  runtime: { compatibilityDate: "2026-01-01" },
  bundle: { repo: "registry.bench.invalid/team/app", digest: DIGEST },
};

export function pathOf(kind: KindName, name?: string): string {
  const { group, version, plural } = KINDS[kind];
  return `/apis/${group}/${version}/${plural}${name === undefined ? "" : `/${name}`}`;
}

export function body(kind: KindName, name: string, spec: unknown): string {
  return JSON.stringify({ apiVersion: KINDS[kind].apiVersion, kind, metadata: { name }, spec });
}

const proxyName = (i: number) => `proxy-${String(i).padStart(5, "0")}`;

/** The latencies of one batch and how long it took. */
interface Batch {
  latencies: number[];
  ms: number;
}

/** Runs `one(index)` for indexes `from` to `to - 1` with `concurrency` in flight, timing each. */
export async function batch(
  from: number,
  to: number,
  concurrency: number,
  one: (index: number) => Promise<void>,
): Promise<Batch> {
  const latencies: number[] = [];
  let next = from;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = next++; index < to; index = next++) {
        const begun = performance.now();
        await one(index);
        latencies.push(performance.now() - begun);
      }
    }),
  );
  return { latencies, ms: performance.now() - start };
}

function summary(batches: readonly Batch[], concurrency: number): LoadResult {
  const latencies = batches.flatMap((entry) => entry.latencies);
  const ms = batches.reduce((sum, entry) => sum + entry.ms, 0);
  return {
    requests: latencies.length,
    concurrency,
    opsPerSecond: round(latencies.length / (ms / 1000), 0),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
  };
}

/** The median of each figure over rounds of the same work. */
export function medianLoad(results: readonly LoadResult[]): LoadResult {
  const first = results[0] as LoadResult;
  return {
    requests: first.requests,
    concurrency: first.concurrency,
    // The mean of two middle values prints as 1.4249999999999998 unless rounded.
    opsPerSecond: round(median(results.map((result) => result.opsPerSecond)), 0),
    p50Ms: round(median(results.map((result) => result.p50Ms))),
    p99Ms: round(median(results.map((result) => result.p99Ms))),
  };
}

/**
 * The same work on two sides in CHUNKS alternating chunks (A B, B A, ...): per side its figures over all
 * chunks, and the median of the per-chunk throughput ratios first side ÷ second side.
 */
export async function paired<Side extends string>(
  sides: readonly [Side, Side],
  requests: number,
  concurrency: number,
  one: (side: Side, index: number) => Promise<void>,
): Promise<{ results: Record<Side, LoadResult>; ratio: number }> {
  const batches = { [sides[0]]: [], [sides[1]]: [] } as unknown as Record<Side, Batch[]>;
  const ratios: number[] = [];
  const size = Math.ceil(requests / CHUNKS);
  for (let chunk = 0; chunk < CHUNKS; chunk++) {
    const order = chunk % 2 === 0 ? sides : ([sides[1], sides[0]] as const);
    const from = chunk * size;
    const to = Math.min(requests, from + size);
    for (const side of order) batches[side].push(await batch(from, to, concurrency, (i) => one(side, i)));
    const [a, b] = sides.map((side) => batches[side].at(-1) as Batch);
    if (a && b) ratios.push(b.ms / a.ms);
  }
  return {
    results: {
      [sides[0]]: summary(batches[sides[0]], concurrency),
      [sides[1]]: summary(batches[sides[1]], concurrency),
    } as Record<Side, LoadResult>,
    ratio: round(median(ratios), 2),
  };
}

export async function request(
  dispatcher: Dispatcher,
  method: "GET" | "POST" | "PUT",
  requestPath: string,
  payload?: string,
) {
  const response = await dispatcher.request({
    method,
    path: requestPath,
    ...(payload !== undefined && { body: payload, headers: { "content-type": "application/json" } }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${requestPath}: ${response.statusCode} ${text}`);
  return text;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  pool: Pool;
  dataDir: string;
  /** What the server printed so far (its log lines, at `logLevel`). */
  output: () => string;
}

export async function spawnServer(
  packageRoot: string,
  storage: Storage,
  logLevel = "silent",
  extraArgs: readonly string[] = [],
): Promise<ServerProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "exampledev-bench-data-"));
  const storageArgs = storage === "memory" ? ["--memory"] : ["--data", dataDir];
  const script = path.join(packageRoot, "dist/server/main.js");
  return spawnListening(
    [script, "--port", "0", "--log-level", logLevel, ...storageArgs, ...extraArgs],
    dataDir,
  );
}

/** The server in memory with its controller paused (bare-backend.ts): the API alone. */
export function spawnBareServer(packageRoot: string): Promise<ServerProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "exampledev-bench-data-"));
  return spawnListening([path.join(packageRoot, "dist/bench/bare-backend.js"), "local"], dataDir);
}

export async function spawnListening(args: readonly string[], dataDir: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code} before listening`)));
  });
  return { url, child, dataDir, pool: new Pool(url, { connections: CONCURRENCY }), output: () => output };
}

export async function stop(server: ServerProcess): Promise<void> {
  await server.pool.close();
  if (server.child.exitCode === null) {
    const exited = once(server.child, "exit");
    server.child.kill("SIGTERM");
    const stopped = await Promise.race([exited.then(() => true), sleep(STOP_WAIT_MS).then(() => false)]);
    if (!stopped) {
      console.error(`  the server did not stop within ${STOP_WAIT_MS / 1000} s of SIGTERM: killed`);
      server.child.kill("SIGKILL");
      await exited;
    }
  }
  rmSync(server.dataDir, { recursive: true, force: true });
}

export function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return round(kb / 1024, 1);
}

/**
 * One round on fresh servers, one in memory and one durable: 10k Proxies created through the API on each,
 * then read back; then GETs through the typed client and through a bare undici Pool on the memory one.
 */
export async function measureServers(packageRoot: string): Promise<ServerRound> {
  const servers = {
    memory: await spawnServer(packageRoot, "memory"),
    durable: await spawnServer(packageRoot, "durable"),
  };
  const client = createClient({ baseUrl: servers.memory.url });
  const sides = ["durable", "memory"] as const;
  try {
    const create = await paired(sides, OBJECTS, CONCURRENCY, async (side, i) => {
      await request(servers[side].pool, "POST", pathOf("Proxy"), body("Proxy", proxyName(i), {}));
    });
    for (const side of sides) {
      await batch(0, 100, CONCURRENCY, async (i) => {
        const revision = body("ServiceRevision", `revision-${i}`, REVISION_SPEC);
        await request(servers[side].pool, "POST", pathOf("ServiceRevision"), revision);
      });
    }
    const get = await paired(sides, 10_000, CONCURRENCY, async (side, i) => {
      await request(servers[side].pool, "GET", pathOf("Proxy", proxyName((i * 7919) % OBJECTS)));
    });
    // Lists one at a time: their latency is the figure (a page should take a few milliseconds).
    const list100 = await paired(sides, 500, 1, async (side) => {
      await request(servers[side].pool, "GET", pathOf("ServiceRevision"));
    });
    const pagedList = await paired(sides, 500, 1, async (side) => {
      await request(servers[side].pool, "GET", `${pathOf("Proxy")}?limit=100`);
    });
    const fullLists = { memory: [] as number[], durable: [] as number[] };
    for (let i = 0; i < 6; i++) {
      for (const side of i % 2 === 0 ? sides : ([...sides].reverse() as Storage[])) {
        const begun = performance.now();
        const text = await request(servers[side].pool, "GET", pathOf("Proxy"));
        fullLists[side].push(performance.now() - begun);
        const count = (JSON.parse(text) as { items: unknown[] }).items.length;
        if (count !== OBJECTS) throw new Error(`the full list held ${count} objects, not ${OBJECTS}`);
      }
    }
    const clientGets = await paired(["typed", "raw"] as const, 10_000, CONCURRENCY, async (side, i) => {
      const name = proxyName((i * 7919) % OBJECTS);
      if (side === "typed") await client.proxies.get(name);
      else JSON.parse(await request(servers.memory.pool, "GET", pathOf("Proxy", name)));
    });
    const figures = (side: Storage): StorageFigures => ({
      create: create.results[side],
      get: get.results[side],
      list100: list100.results[side],
      pagedList: pagedList.results[side],
      fullList10kMs: round(median(fullLists[side]), 1),
      rssMb: rssMb(servers[side].child.pid),
    });
    return {
      memory: figures("memory"),
      durable: figures("durable"),
      durableCreateOverMemory: create.ratio,
      client: { ...clientGets.results, typedOverRaw: clientGets.ratio },
    };
  } finally {
    await client.close();
    await stop(servers.memory);
    await stop(servers.durable);
  }
}
