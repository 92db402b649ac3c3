import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import type { Options } from "./options";
import { COPIES, type PatchRound } from "./patch-blocking";
import type { Variant } from "./programs";
import { type Operation, openStack, type StackOptions, type Timings } from "./pulumi-runs";
import type { FloorRow, SideCost } from "./request-floor";
import {
  CONCURRENCY,
  type LoadResult,
  measureServers,
  medianLoad,
  OBJECTS,
  type ServerRound,
  type Storage,
} from "./server-load";
import { median, round, table } from "./stats";
import type { Toolchain } from "./toolchains";
import { measureWatches, WATCH_COUNTS, type WatchRound } from "./watch-load";

// The default sections of `npm run bench` (no --backends): each measures, and prints its table.

const seconds = (ms: number) => round(ms / 1000, 2);

/**
 * One untimed preview of each program: the first CLI run of a benchmark reads the CLI, the language host and
 * node_modules from disk and fills Node's compile cache, which a user pays once, not at every preview; without
 * it that cost fell on whichever program went first (a first preview pair measured 1.23× against 1.08× next).
 */
async function warmUp(opts: Omit<StackOptions, "variant">) {
  for (const variant of ["provider", "noop"] as const) {
    const stack = await openStack({ variant, ...opts });
    try {
      await stack.run("preview");
    } finally {
      await stack.dispose();
    }
  }
  console.error("  warmed up: one untimed preview of each program");
}

export async function benchPulumi(opts: Options & { toolchain: Toolchain }) {
  const runs: { rep: number; operation: Operation; timings: Record<Variant, number>; loadavg: number }[] = [];
  const stateBytes: Record<Variant, number | undefined>[] = [];
  const tempDir = mkdtempSync(path.join(tmpdir(), "exampledev-bench-tmp-"));
  try {
    await warmUp({ tempDir, ...opts });
    for (let rep = 0; rep < opts.reps; rep++) {
      const stacks = {
        provider: await openStack({ variant: "provider", tempDir, ...opts }),
        noop: await openStack({ variant: "noop", tempDir, ...opts }),
      };
      try {
        for (const [index, operation] of opts.operations.entries()) {
          // Each operation runs on both programs back to back, so both meet the same load on the machine;
          // which goes first alternates (ABAB), so neither always runs on a warmer machine.
          const order: Variant[] = (rep + index) % 2 === 0 ? ["provider", "noop"] : ["noop", "provider"];
          const timings = {} as Record<Variant, number>;
          for (const variant of order) timings[variant] = await stacks[variant].run(operation);
          runs.push({ rep, operation, timings, loadavg: round(loadavg()[0] ?? 0, 1) });
          console.error(
            `  rep ${rep + 1}/${opts.reps} ${operation.padEnd(8)} provider ${seconds(timings.provider)}s, ` +
              `no-op ${seconds(timings.noop)}s (load average ${runs.at(-1)?.loadavg})`,
          );
        }
        stateBytes.push({
          provider: stacks.provider.stateBytesPerResource(),
          noop: stacks.noop.stateBytesPerResource(),
        });
      } finally {
        await stacks.provider.dispose();
        await stacks.noop.dispose();
      }
    }
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
  const of = (operation: Operation) => runs.filter((run) => run.operation === operation);
  const medians = (variant: Variant) =>
    Object.fromEntries(
      opts.operations.map((op) => [op, median(of(op).map((run) => run.timings[variant]))]),
    ) as Partial<Timings>;
  // The median of the per-pair ratios: each pair met the same load, so it is the steadier figure.
  const ratios = Object.fromEntries(
    opts.operations.map((op) => [
      op,
      round(median(of(op).map((run) => run.timings.provider / run.timings.noop)), 2),
    ]),
  ) as Partial<Timings>;
  return {
    n: opts.n,
    reps: opts.reps,
    operations: opts.operations,
    proxyDeletionGraceMs: opts.proxyDeletionGraceMs ?? "default",
    runs,
    stateBytesPerResource: stateBytes[0],
    medians: { provider: medians("provider"), noop: medians("noop") },
    ratios,
  };
}

export async function benchServer(opts: Options) {
  const rounds: ServerRound[] = [];
  for (let rep = 0; rep < opts.reps; rep++) {
    rounds.push(await measureServers(opts.packageRoot));
    console.error(`  rep ${rep + 1}/${opts.reps} measured (load average ${round(loadavg()[0] ?? 0, 1)})`);
  }
  const summarize = (storage: Storage) => {
    const runs = rounds.map((run) => run[storage]);
    return {
      create: medianLoad(runs.map((run) => run.create)),
      get: medianLoad(runs.map((run) => run.get)),
      list100: medianLoad(runs.map((run) => run.list100)),
      pagedList: medianLoad(runs.map((run) => run.pagedList)),
      fullList10kMs: round(median(runs.map((run) => run.fullList10kMs)), 1),
      rssMb: round(median(runs.map((run) => run.rssMb)), 1),
    };
  };
  return {
    objects: OBJECTS,
    concurrency: CONCURRENCY,
    rounds,
    medians: {
      memory: summarize("memory"),
      durable: summarize("durable"),
      client: {
        typed: medianLoad(rounds.map((run) => run.client.typed)),
        raw: medianLoad(rounds.map((run) => run.client.raw)),
      },
    },
    ratios: {
      durableCreateOverMemory: round(median(rounds.map((run) => run.durableCreateOverMemory))),
      typedOverRawGet: round(median(rounds.map((run) => run.client.typedOverRaw))),
    },
  };
}

export async function benchWatches(opts: Options) {
  const rounds: WatchRound[] = [];
  for (let rep = 0; rep < opts.reps; rep++) {
    rounds.push(await measureWatches(opts.packageRoot));
    console.error(`  rep ${rep + 1}/${opts.reps} measured (load average ${round(loadavg()[0] ?? 0, 1)})`);
  }
  const rate = (watches: number) =>
    median(rounds.map((run) => run.fanOut.find((row) => row.watches === watches)?.createsPerSecond ?? 0));
  return {
    rounds,
    createsPerSecond: Object.fromEntries(WATCH_COUNTS.map((watches) => [watches, round(rate(watches), 0)])),
    // Each round's rows ran one after another on the same machine: the ratio of the medians.
    ratios: Object.fromEntries(WATCH_COUNTS.map((watches) => [watches, round(rate(watches) / rate(0))])),
  };
}

type WatchFigures = Awaited<ReturnType<typeof benchWatches>>;
type PulumiFigures = Awaited<ReturnType<typeof benchPulumi>>;
type ServerFigures = Awaited<ReturnType<typeof benchServer>>;

export function printPulumi(figures: PulumiFigures, toolchain: string): void {
  const grace =
    figures.proxyDeletionGraceMs === "default" ? "server default" : `${figures.proxyDeletionGraceMs} ms`;
  console.log(
    `\nPulumi ${toolchain}, N=${figures.n}, median of ${figures.reps} (seconds; Proxy deletion grace: ${grace})`,
  );
  console.log(
    table([
      ["operation", "provider", "no-op", "provider ÷ no-op (median of pairs)"],
      ...figures.operations.map((op) => [
        op,
        seconds(figures.medians.provider[op] ?? Number.NaN),
        seconds(figures.medians.noop[op] ?? Number.NaN),
        `${figures.ratios[op]}×`,
      ]),
    ]),
  );
  const bytes = figures.stateBytesPerResource;
  if (bytes?.provider !== undefined) {
    console.log(`state after up, bytes per resource: provider ${bytes.provider}, no-op ${bytes.noop}`);
  }
}

export function printServer(figures: ServerFigures): void {
  const { memory, durable, client } = figures.medians;
  const load = (result: LoadResult) => `${result.opsPerSecond}/s p50 ${result.p50Ms} p99 ${result.p99Ms} ms`;
  console.log(
    `\nAPI servers (child processes), ${OBJECTS} Proxies, concurrency ${CONCURRENCY} unless noted, medians; ` +
      "ratios are medians of per-chunk ratios (both sides run in alternating chunks)",
  );
  console.log(
    table([
      ["measure", "memory", "durable", "durable ÷ memory"],
      ["create", load(memory.create), load(durable.create), `${figures.ratios.durableCreateOverMemory}×`],
      ["GET", load(memory.get), load(durable.get), ""],
      ["list of 100 (one at a time)", load(memory.list100), load(durable.list100), ""],
      ["paged list, limit 100 of 10k (one at a time)", load(memory.pagedList), load(durable.pagedList), ""],
      ["full list of 10k (ms)", memory.fullList10kMs, durable.fullList10kMs, ""],
      ["server RSS after 10k (MB)", memory.rssMb, durable.rssMb, ""],
    ]),
  );
  console.log(
    `\nGET through the typed client: ${load(client.typed)}; raw undici Pool: ${load(client.raw)}; ` +
      `typed ÷ raw ${figures.ratios.typedOverRawGet}×`,
  );
}

export function printFloor(rows: readonly FloorRow[]): void {
  const [first] = rows;
  console.log(
    `\nThe request path ÷ its libraries' floor (a bare fastify route and an undici client), ` +
      `${first?.requests ?? 0} requests each, one at a time, a 1.6 kB Service; µs per request (CPU; wall)`,
  );
  const cost = (side: SideCost) => `${side.clientUs} / ${side.serverUs}; ${side.wallUs}`;
  console.log(
    table([
      [
        "operation",
        "floor client / server; wall",
        "project client / server; wall",
        "client ÷",
        "server ÷",
        "wall ÷",
      ],
      ...rows.map((row) => [
        row.operation,
        cost(row.floor),
        cost(row.project),
        `${row.clientRatio}×`,
        `${row.serverRatio}×`,
        `${row.wallRatio}×`,
      ]),
    ]),
  );
}

export function printWatches(figures: WatchFigures): void {
  console.log(
    `\nWatches (a child process holds them on raw sockets), Proxy creates at concurrency ${CONCURRENCY}, ` +
      `median of ${figures.rounds.length}`,
  );
  const last = figures.rounds.at(-1);
  console.log(
    table([
      ["reading watches", "creates/s", "÷ no watches", "events delivered (last round)", "ended by server"],
      ...WATCH_COUNTS.map((watches) => {
        const row = last?.fanOut.find((entry) => entry.watches === watches);
        return [
          watches,
          figures.createsPerSecond[watches] ?? "",
          `${figures.ratios[watches]}×`,
          row?.eventsDelivered ?? "",
          row?.endedByServer ?? "",
        ];
      }),
    ]),
  );
  for (const { stalled } of figures.rounds) {
    const slowest =
      stalled.slowestCloseMs === undefined
        ? ""
        : `, the slowest ${stalled.slowestCloseMs} ms after falling behind`;
    console.log(
      `${stalled.watches} stalled watches, 40 writes of 900 kB: server RSS ${stalled.rssBeforeMb} MB before, ` +
        `peak ${stalled.rssPeakMb} MB, ${stalled.rssAfterMb} MB after; ${stalled.closed} closed${slowest}`,
    );
  }
}

export function printPatchBlocking(rounds: readonly PatchRound[]): void {
  console.log(
    `\nHostile requests one at a time (a JSON patch of ${COPIES} doubling copies, dryRun=All; a 1 MiB body of ` +
      "numbers with a duplicate key): the server's event-loop delay while each ran, and the longest /healthz " +
      "wait meanwhile (ms)",
  );
  console.log(
    table([
      ["request", "status", "answer bytes", "time", "loop p50", "loop p99", "loop max", "/healthz max"],
      ...rounds.map((run) => [
        run.request,
        run.status,
        run.answerBytes,
        run.ms,
        run.loop.p50Ms,
        run.loop.p99Ms,
        run.loop.maxMs,
        run.healthzMaxMs,
      ]),
    ]),
  );
}
