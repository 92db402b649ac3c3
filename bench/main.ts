// `npm run bench`: how fast the provider applies and destroys compared with the engine on a no-op provider,
// and how fast the local API server answers. Prints medians and ratios and writes every figure as JSON.
// Not part of `npm test`: nothing here is an assertion.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { BACKENDS } from "./backends";
import { benchMinting, type MintingOptions } from "./minting";
import { COPIES, measurePatchBlocking, type PatchRound } from "./patch-blocking";
import type { Variant } from "./programs";
import { OPERATIONS, type Operation, openStack, type StackOptions, type Timings } from "./pulumi-runs";
import { benchScale, type ScaleOptions } from "./scale";
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
import { measureWatches, WATCH_COUNTS, type WatchRound } from "./watch-load";

const USAGE = `usage: npm run bench -- [--n 200] [--reps 3] [--out bench-results.json]
                        [--proxy-deletion-grace-ms <ms>] [--only pulumi|server|watch|event-loop]
                        [--through preview|up|update|destroy]  (the last CLI operation of a round)
                        [--package-root <dir>]  (the package under test; default: this one)
       npm run bench -- --backends local,kube [--n 200,1000] [--reps 3,1] [--only pulumi|server] [--out <file>]
       npm run bench -- --backends local,kube --only minting [--controller-workers 1,] [--reps 3] [--out <file>]
                        (1,000 Services minted per round; an empty --controller-workers value: the default)
                        (the local server against kube-apiserver, and this provider against pulumi-kubernetes;
                        --n and --reps are lists, --reps matched to --n by position; the first is the server
                        section's rounds too)`;

const SECTIONS = ["pulumi", "server", "watch", "event-loop"] as const;
type Section = (typeof SECTIONS)[number];

function options() {
  const { values } = parseArgs({
    options: {
      n: { type: "string", default: "200" },
      reps: { type: "string", default: "3" },
      out: { type: "string", default: "bench-results.json" },
      "proxy-deletion-grace-ms": { type: "string" },
      only: { type: "string" },
      through: { type: "string", default: "destroy" },
      "package-root": { type: "string" },
      backends: { type: "string" },
      "controller-workers": { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const positive = (flag: string, text: string) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${flag}: "${text}" is not a positive integer`);
    return value;
  };
  const grace = values["proxy-deletion-grace-ms"];
  if (values.backends !== undefined && values.only === "minting") {
    const minting = mintingOptions(values, positive);
    return { scale: undefined, minting, out: values.out, packageRoot: minting.packageRoot };
  }
  if (values.backends !== undefined) {
    const scale = scaleOptions(values, positive);
    return { scale, out: values.out, packageRoot: scale.packageRoot };
  }
  if (values.only !== undefined && !SECTIONS.includes(values.only as Section))
    throw new Error(`--only: "${values.only}" is none of ${SECTIONS.join(", ")}`);
  // Each operation needs the ones before it (an update needs the stack up), so a round runs a prefix.
  const last = OPERATIONS.indexOf(values.through as Operation);
  if (last === -1) throw new Error(`--through: "${values.through}" is none of ${OPERATIONS.join(", ")}`);
  return {
    scale: undefined,
    n: positive("n", values.n),
    operations: OPERATIONS.slice(0, last + 1),
    reps: positive("reps", values.reps),
    out: values.out,
    proxyDeletionGraceMs: grace === undefined ? undefined : Number(grace),
    only: values.only as Section | undefined,
    packageRoot: path.resolve(values["package-root"] ?? path.resolve(__dirname, "../..")),
  };
}

/** `--backends local,kube --only minting [--controller-workers 1,] [--reps 3]`: the controller alone. */
function mintingOptions(
  values: { backends?: string; reps: string; "package-root"?: string; "controller-workers"?: string },
  positive: (flag: string, text: string) => number,
): MintingOptions {
  const workers = (values["controller-workers"] ?? "").split(",").map((text) => {
    return text === "" ? undefined : positive("controller-workers", text);
  });
  return {
    packageRoot: path.resolve(values["package-root"] ?? path.resolve(__dirname, "../..")),
    workers,
    reps: positive("reps", values.reps.split(",")[0] ?? "3"),
    backends: BACKENDS.filter((name) => values.backends?.split(",").includes(name)),
  };
}

/** `--backends local,kube`: both backends in one run, `--n` and `--reps` as lists. */
function scaleOptions(
  values: { backends?: string; n: string; reps: string; only?: string; "package-root"?: string },
  positive: (flag: string, text: string) => number,
): ScaleOptions {
  const backends = new Set(values.backends?.split(","));
  if (backends.size !== BACKENDS.length || !BACKENDS.every((name) => backends.has(name)))
    throw new Error(
      `--backends: "${values.backends}" is not ${BACKENDS.join(",")} (the comparison needs both)`,
    );
  if (values.only !== undefined && values.only !== "pulumi" && values.only !== "server")
    throw new Error(`--only: with --backends, pulumi or server, not "${values.only}"`);
  const ns = values.n.split(",").map((text) => positive("n", text));
  const reps = values.reps.split(",").map((text) => positive("reps", text));
  const pulumi = ns.map((n, index) => ({ n, reps: reps[Math.min(index, reps.length - 1)] as number }));
  return {
    packageRoot: path.resolve(values["package-root"] ?? path.resolve(__dirname, "../..")),
    serverReps: reps[0] as number,
    pulumi: values.only === "server" ? [] : pulumi,
    server: values.only !== "pulumi",
  };
}

/** The options of the default sections (no --backends). */
type Options = Exclude<
  Extract<ReturnType<typeof options>, { scale: undefined }>,
  { minting: MintingOptions }
>;

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

async function benchPulumi(opts: Options) {
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

async function benchServer(opts: Options) {
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

async function benchWatches(opts: Options) {
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

function printPulumi(figures: PulumiFigures): void {
  const grace =
    figures.proxyDeletionGraceMs === "default" ? "server default" : `${figures.proxyDeletionGraceMs} ms`;
  console.log(
    `\nPulumi CLI, N=${figures.n}, median of ${figures.reps} (seconds; Proxy deletion grace: ${grace})`,
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

function printServer(figures: ServerFigures): void {
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

function printWatches(figures: WatchFigures): void {
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

function printPatchBlocking(rounds: readonly PatchRound[]): void {
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

async function main(): Promise<void> {
  let opts: ReturnType<typeof options>;
  try {
    opts = options();
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadavg: loadavg() },
    packageRoot: opts.packageRoot,
  };
  console.error(`benchmarking ${opts.packageRoot}`);
  if ("minting" in opts && opts.minting !== undefined) {
    Object.assign(results, await benchMinting(opts.minting));
    finish(results, opts.out);
    return;
  }
  if (opts.scale !== undefined) {
    Object.assign(results, await benchScale(opts.scale));
    finish(results, opts.out);
    return;
  }
  const runs = (section: Section) => opts.only === undefined || opts.only === section;
  if (runs("pulumi")) {
    console.error(`Pulumi runs, N=${opts.n}, ${opts.reps} repetitions`);
    const figures = await benchPulumi(opts);
    results.pulumi = figures;
    printPulumi(figures);
  }
  if (runs("server")) {
    console.error("API server load");
    const figures = await benchServer(opts);
    results.server = figures;
    printServer(figures);
  }
  if (runs("watch")) {
    console.error("Watches");
    const figures = await benchWatches(opts);
    results.watch = figures;
    printWatches(figures);
  }
  if (runs("event-loop")) {
    console.error("event loop under issue 22's doubling JSON patch");
    const rounds = await measurePatchBlocking(opts.packageRoot, opts.reps);
    results.patchBlocking = rounds;
    printPatchBlocking(rounds);
  }
  finish(results, opts.out);
}

function finish(results: Record<string, unknown>, out: string): void {
  results.loadavgAtEnd = loadavg();
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nEvery figure: ${path.resolve(out)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
