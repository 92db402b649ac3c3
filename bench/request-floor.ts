// The request path against its libraries' floor (issue 50): CPU per request of the project, client and server
// side, ÷ that of a bare fastify route and an undici client (floor-server.ts) measured in the same run. One
// keep-alive connection, one request at a time, a 1.6 kB Service body; the project's side is the typed client
// (`sdk/client`) against the local server with its controller paused (bare-backend.ts), so a request's cost
// is the API's alone. Server CPU is the sum over the process's threads of /proc's scheduler runtime (ns);
// client CPU is process.cpuUsage() of this process, which runs nothing else meanwhile. Floor and project run
// in alternating chunks, so load from elsewhere on the machine meets both alike.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "undici";
import { type Client, createClient, type ServiceInput } from "../sdk/client";
import { type ServerProcess, spawnBareServer, spawnListening, stop } from "./server-load";
import { round } from "./stats";

export const FLOOR_OPERATIONS = ["dryRunCreate", "create", "get", "patch"] as const;
export type FloorOperation = (typeof FLOOR_OPERATIONS)[number];

const CHUNKS = 10;
const PER_CHUNK = 500;
/** Untimed requests of each operation first: they load code and warm the JIT. */
const WARM_UP = 200;

export interface SideCost {
  /** Microseconds of CPU per request. */
  clientUs: number;
  serverUs: number;
  wallUs: number;
}

export interface FloorRow {
  operation: FloorOperation;
  requests: number;
  floor: SideCost;
  project: SideCost;
  /** project ÷ floor. */
  clientRatio: number;
  serverRatio: number;
  wallRatio: number;
}

/** A Service body of about 1.6 kB as JSON: labels, annotations, env, bindings, egress. */
export function benchService(name: string): ServiceInput {
  const labels: Record<string, string> = {};
  for (let i = 0; i < 6; i++) labels[`app.example.dev/label-${i}`] = `value-${i}-${name.length}`;
  return {
    apiVersion: "compute.example.dev/v1alpha1",
    kind: "Service",
    metadata: {
      name,
      labels,
      annotations: { "team.example.dev/owner": "platform-team", "team.example.dev/ticket": "OPS-1234" },
    },
    spec: {
      source: { oci: { repo: "registry.bench.invalid/team/app", digest: `sha256:${"cd".repeat(32)}` } },
      template: {
        spec: {
          runtime: { compatibilityDate: "2026-01-01", compatibilityFlags: ["nodejs_compat"] },
          env: Array.from({ length: 8 }, (_, i) => ({
            name: `SETTING_${i}`,
            value: `value-of-setting-${i}`,
          })),
          bindings: [
            { name: "CACHE", type: "kv", kv: { namespace: "cache-namespace" } },
            { name: "USERS", type: "service", service: { serviceRef: "users" } },
          ],
          egress: { gatewayRef: "default" },
        },
      },
    },
  };
}

interface Side {
  /** Runs request `i` of `operation`. */
  run(operation: FloorOperation, i: number): Promise<void>;
  /** Creates what a get or a patch reads. */
  prepare(count: number): Promise<void>;
  server: ServerProcess;
  close(): Promise<void>;
}

const readyName = (i: number) => `ready-${i}`;
const patchOf = (i: number) => ({ metadata: { labels: { "app.example.dev/patched": String(i) } } });

async function floorSide(packageRoot: string): Promise<Side> {
  const script = path.join(packageRoot, "dist/bench/floor-server.js");
  const server = await spawnListening([script], mkdtempSync(path.join(tmpdir(), "exampledev-bench-floor-")));
  const pool = new Pool(server.url, { connections: 1 });
  const json = { "content-type": "application/json" };
  const send = async (method: "GET" | "POST" | "PATCH", at: string, body?: unknown, type = json) => {
    const response = await pool.request({
      method,
      path: at,
      ...(body !== undefined && { body: JSON.stringify(body), headers: type }),
    });
    await response.body.json();
    if (response.statusCode >= 300) throw new Error(`floor ${method} ${at}: ${response.statusCode}`);
  };
  const mergePatch = { "content-type": "application/merge-patch+json" };
  return {
    server,
    prepare: async (count) => {
      for (let i = 0; i < count; i++) await send("POST", "/items", benchService(readyName(i)));
    },
    run: (operation, i) => {
      if (operation === "get") return send("GET", `/items/${readyName(i)}`);
      if (operation === "patch") return send("PATCH", `/items/${readyName(i)}`, patchOf(i), mergePatch);
      return send("POST", "/items", benchService(`${operation}-${i}`));
    },
    close: async () => {
      await pool.close();
      await stop(server);
    },
  };
}

async function projectSide(packageRoot: string): Promise<Side> {
  const server = await spawnBareServer(packageRoot);
  const client: Client = createClient({ baseUrl: server.url });
  const { services } = client;
  return {
    server,
    prepare: async (count) => {
      for (let i = 0; i < count; i++) await services.create(benchService(readyName(i)));
    },
    run: async (operation, i) => {
      if (operation === "get") await services.get(readyName(i));
      else if (operation === "patch") await services.patch(readyName(i), patchOf(i), { type: "merge" });
      else if (operation === "dryRunCreate")
        await services.create(benchService(`dry-${i}`), { dryRun: "All" });
      else await services.create(benchService(`${operation}-${i}`));
    },
    close: async () => {
      await client.close();
      await stop(server);
    },
  };
}

/** Nanoseconds of CPU the process `pid` has run, all threads. */
function processCpuNs(pid: number | undefined): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const fields = readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ");
    total += Number(fields[0]);
  }
  return total;
}

interface Tally {
  clientUs: number;
  serverNs: number;
  wallMs: number;
}

async function chunk(side: Side, operation: FloorOperation, from: number, tally: Tally) {
  const pid = side.server.child.pid;
  const serverBefore = processCpuNs(pid);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  for (let i = from; i < from + PER_CHUNK; i++) await side.run(operation, i);
  tally.wallMs += performance.now() - started;
  const { user, system } = process.cpuUsage(clientBefore);
  tally.clientUs += user + system;
  tally.serverNs += processCpuNs(pid) - serverBefore;
}

const costOf = (tally: Tally, requests: number): SideCost => ({
  clientUs: round(tally.clientUs / requests, 1),
  serverUs: round(tally.serverNs / 1000 / requests, 1),
  wallUs: round((tally.wallMs * 1000) / requests, 1),
});

export async function measureFloor(packageRoot: string): Promise<FloorRow[]> {
  const sides = { floor: await floorSide(packageRoot), project: await projectSide(packageRoot) };
  const requests = CHUNKS * PER_CHUNK;
  try {
    for (const side of Object.values(sides)) await side.prepare(WARM_UP + requests);
    for (const side of Object.values(sides))
      for (const operation of FLOOR_OPERATIONS)
        for (let i = 0; i < WARM_UP; i++) await side.run(operation, i);
    const rows: FloorRow[] = [];
    for (const operation of FLOOR_OPERATIONS) {
      const tallies = {
        floor: { clientUs: 0, serverNs: 0, wallMs: 0 },
        project: { clientUs: 0, serverNs: 0, wallMs: 0 },
      };
      for (let c = 0; c < CHUNKS; c++) {
        const order = c % 2 === 0 ? (["floor", "project"] as const) : (["project", "floor"] as const);
        for (const name of order) await chunk(sides[name], operation, WARM_UP + c * PER_CHUNK, tallies[name]);
      }
      const floor = costOf(tallies.floor, requests);
      const project = costOf(tallies.project, requests);
      rows.push({
        operation,
        requests,
        floor,
        project,
        clientRatio: round(project.clientUs / floor.clientUs, 2),
        serverRatio: round(project.serverUs / floor.serverUs, 2),
        wallRatio: round(project.wallUs / floor.wallUs, 2),
      });
    }
    return rows;
  } finally {
    for (const side of Object.values(sides)) await side.close();
  }
}
