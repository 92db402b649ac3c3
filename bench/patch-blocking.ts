// How long one hostile request holds the API server's event loop, sent to `dist/server/main.js` as a child
// process with event-loop-probe.ts preloaded: issue 22's JSON patch, whose `copy` operations double a
// 1,000-character seed each time (17 of them, `dryRun=All`), and a create whose body is just under 1 MiB
// (the body limit before the size limit) of numbers with a duplicate key, which the strict-JSON scan reads
// token by token. While each request runs, a second connection asks /healthz every 10 ms. Reports per
// request its status, answer size and time, the longest /healthz wait, and the server's event-loop delay
// (p50, p99, max) over the request.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { Pool } from "undici";
import { KINDS } from "../sdk/schema";
import type { LoopDelay } from "./event-loop-probe";
import { round } from "./stats";

export const COPIES = 17;
const SEED_LENGTH = 1000;
const HEALTH_INTERVAL_MS = 10;

export interface PatchRound {
  request: string;
  status: number;
  answerBytes: number;
  ms: number;
  healthzMaxMs: number;
  loop: LoopDelay;
}

const { group, version, plural } = KINDS.Proxy;
const PROXY = `/apis/${group}/${version}/${plural}`;
const FIELD = "/spec/telemetry/accessLogs/json";

/** The patch of the issue: each copy puts the whole field inside itself, doubling it. */
export function doublingPatch(copies: number): string {
  return JSON.stringify(
    Array.from({ length: copies }, (_, i) => ({ op: "copy", from: FIELD, path: `${FIELD}/c${i}` })),
  );
}

async function send(pool: Pool, method: "GET" | "POST" | "PATCH", url: string, body?: string, type?: string) {
  const response = await pool.request({
    method,
    path: url,
    ...(body !== undefined && { body, headers: { "content-type": type ?? "application/json" } }),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

function spawnProbed(packageRoot: string): { child: ChildProcess; url: Promise<string> } {
  const probe = path.join(__dirname, "event-loop-probe.js");
  const main = path.join(packageRoot, "dist/server/main.js");
  const child = spawn(
    process.execPath,
    ["-r", probe, main, "--port", "0", "--memory", "--log-level", "silent"],
    {
      stdio: ["ignore", "pipe", "inherit", "ipc"],
    },
  );
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code} before listening`)));
  });
  return { child, url };
}

function probe(child: ChildProcess, command: "reset" | "report"): Promise<LoopDelay> {
  const reply = once(child, "message").then(([message]) => message as LoopDelay);
  child.send(command);
  return reply;
}

/** A create of about 1 MiB: half a million numbers under `spec.x`, then `spec` again (a duplicate key). */
function bodyOfNumbers(name: string): string {
  const numbers = Math.floor((1024 * 1024 - 200) / 2);
  const head = `{"apiVersion":"${KINDS.Proxy.apiVersion}","kind":"Proxy","metadata":{"name":"${name}"}`;
  return `${head},"spec":{"x":[${"0,".repeat(numbers - 1)}0]},"spec":{}}`;
}

/** `reps` rounds of each hostile request against one fresh server of the package at `packageRoot` (built). */
export async function measurePatchBlocking(packageRoot: string, reps: number): Promise<PatchRound[]> {
  const { child, url } = spawnProbed(packageRoot);
  const base = await url;
  const api = new Pool(base, { connections: 1 });
  const health = new Pool(base, { connections: 1 });
  try {
    const proxy = JSON.stringify({
      apiVersion: KINDS.Proxy.apiVersion,
      kind: "Proxy",
      metadata: { name: "p1" },
      spec: {},
    });
    const seed = JSON.stringify({
      spec: { telemetry: { accessLogs: { json: { seed: "x".repeat(SEED_LENGTH) } } } },
    });
    for (const [method, url, body, type] of [
      ["POST", PROXY, proxy, undefined],
      ["PATCH", `${PROXY}/p1`, seed, "application/merge-patch+json"],
    ] as const) {
      const { status, text } = await send(api, method, url, body, type);
      if (status >= 300) throw new Error(`${method} ${url}: ${status} ${text}`);
    }
    const rounds: PatchRound[] = [];
    const hostile = [
      {
        name: "copy patch",
        send: () =>
          send(api, "PATCH", `${PROXY}/p1?dryRun=All`, doublingPatch(COPIES), "application/json-patch+json"),
      },
      { name: "1 MiB of numbers", send: (rep: number) => send(api, "POST", PROXY, bodyOfNumbers(`n${rep}`)) },
    ];
    for (let rep = 0; rep < reps; rep++) {
      for (const request of hostile) {
        await probe(child, "reset");
        let healthzMaxMs = 0;
        let running = true;
        const probing = (async () => {
          while (running) {
            const begun = performance.now();
            await send(health, "GET", "/healthz");
            healthzMaxMs = Math.max(healthzMaxMs, performance.now() - begun);
            await new Promise((resolve) => setTimeout(resolve, HEALTH_INTERVAL_MS));
          }
        })();
        const begun = performance.now();
        const { status, text } = await request.send(rep);
        const ms = performance.now() - begun;
        running = false;
        await probing;
        rounds.push({
          request: request.name,
          status,
          answerBytes: Buffer.byteLength(text),
          ms: round(ms, 1),
          healthzMaxMs: round(healthzMaxMs, 1),
          loop: await probe(child, "report"),
        });
      }
    }
    return rounds;
  } finally {
    await api.close();
    await health.close();
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  }
}
