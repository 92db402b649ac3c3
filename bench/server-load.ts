// The API server under load, as a child process (`dist/server/main.js`) so the load generator does not share
// its event loop: create, GET, list and paged-list throughput and latency, with in-memory and durable
// storage; the typed client against a raw undici Pool; the time of a full list of 10k; the server's RSS.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "undici";
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

export interface StorageResult {
  storage: "memory" | "durable";
  create: LoadResult;
  get: LoadResult;
  list100: LoadResult;
  pagedList: LoadResult;
  fullList10kMs: number;
  rssMb: number;
}

export interface ClientResult {
  typed: LoadResult;
  raw: LoadResult;
}

export const OBJECTS = 10_000;
export const CONCURRENCY = 16;
const DIGEST = `sha256:${"ab".repeat(32)}`;
const REVISION_SPEC = {
  runtime: { compatibilityDate: "2026-01-01" },
  bundle: { repo: "registry.bench.invalid/team/app", digest: DIGEST },
};

function pathOf(kind: KindName, name?: string): string {
  const { group, version, plural } = KINDS[kind];
  return `/apis/${group}/${version}/${plural}${name === undefined ? "" : `/${name}`}`;
}

function body(kind: KindName, name: string, spec: unknown): string {
  return JSON.stringify({ apiVersion: KINDS[kind].apiVersion, kind, metadata: { name }, spec });
}

const proxyName = (i: number) => `proxy-${String(i).padStart(5, "0")}`;

/** Runs `requests` calls of `one(index)` with `concurrency` in flight, timing each. */
export async function load(
  requests: number,
  concurrency: number,
  one: (index: number) => Promise<void>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = next++; index < requests; index = next++) {
        const begun = performance.now();
        await one(index);
        latencies.push(performance.now() - begun);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return {
    requests,
    concurrency,
    opsPerSecond: round(requests / seconds, 0),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
  };
}

async function request(pool: Pool, method: "GET" | "POST", requestPath: string, payload?: string) {
  const response = await pool.request({
    method,
    path: requestPath,
    ...(payload !== undefined && { body: payload, headers: { "content-type": "application/json" } }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${requestPath}: ${response.statusCode} ${text}`);
  return text;
}

interface ServerProcess {
  url: string;
  child: ChildProcess;
}

async function spawnServer(packageRoot: string, storageArgs: string[]): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [path.join(packageRoot, "dist/server/main.js"), "--port", "0", "--log-level", "silent", ...storageArgs],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code} before listening`)));
  });
  return { url, child };
}

async function stop(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = once(server.child, "exit");
  server.child.kill("SIGTERM");
  await exited;
}

function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return round(kb / 1024, 1);
}

/** One storage's figures on a fresh server: 10k Proxies created through the API, then read back. */
export async function measureStorage(
  packageRoot: string,
  storage: "memory" | "durable",
): Promise<StorageResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "exampledev-bench-data-"));
  const server = await spawnServer(packageRoot, storage === "memory" ? ["--memory"] : ["--data", dataDir]);
  const pool = new Pool(server.url, { connections: CONCURRENCY });
  try {
    const create = await load(OBJECTS, CONCURRENCY, async (i) => {
      await request(pool, "POST", pathOf("Proxy"), body("Proxy", proxyName(i), {}));
    });
    await load(100, CONCURRENCY, async (i) => {
      await request(
        pool,
        "POST",
        pathOf("ServiceRevision"),
        body("ServiceRevision", `revision-${i}`, REVISION_SPEC),
      );
    });
    const get = await load(5_000, CONCURRENCY, async (i) => {
      await request(pool, "GET", pathOf("Proxy", proxyName((i * 7919) % OBJECTS)));
    });
    // Lists one at a time: their latency is the figure (a page should take a few milliseconds).
    const list100 = await load(500, 1, async () => {
      await request(pool, "GET", pathOf("ServiceRevision"));
    });
    const pagedList = await load(500, 1, async () => {
      await request(pool, "GET", `${pathOf("Proxy")}?limit=100`);
    });
    const fullLists: number[] = [];
    for (let i = 0; i < 5; i++) {
      const begun = performance.now();
      const text = await request(pool, "GET", pathOf("Proxy"));
      fullLists.push(performance.now() - begun);
      const count = (JSON.parse(text) as { items: unknown[] }).items.length;
      if (count !== OBJECTS) throw new Error(`the full list held ${count} objects, not ${OBJECTS}`);
    }
    return {
      storage,
      create,
      get,
      list100,
      pagedList,
      fullList10kMs: round(median(fullLists), 1),
      rssMb: rssMb(server.child.pid),
    };
  } finally {
    await pool.close();
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** GET through the typed client (`@exampledev/pulumi/client`) and through a bare undici Pool, in turn. */
export async function measureClient(packageRoot: string, typedFirst: boolean): Promise<ClientResult> {
  const server = await spawnServer(packageRoot, ["--memory"]);
  const pool = new Pool(server.url, { connections: CONCURRENCY });
  const client = createClient({ baseUrl: server.url });
  try {
    await load(1_000, CONCURRENCY, async (i) => {
      await request(pool, "POST", pathOf("Proxy"), body("Proxy", proxyName(i), {}));
    });
    const typed = () =>
      load(5_000, CONCURRENCY, async (i) => {
        await client.proxies.get(proxyName(i % 1_000));
      });
    const raw = () =>
      load(5_000, CONCURRENCY, async (i) => {
        JSON.parse(await request(pool, "GET", pathOf("Proxy", proxyName(i % 1_000))));
      });
    if (typedFirst) {
      const typedResult = await typed();
      return { typed: typedResult, raw: await raw() };
    }
    const rawResult = await raw();
    return { typed: await typed(), raw: rawResult };
  } finally {
    await client.close();
    await pool.close();
    await stop(server);
  }
}
