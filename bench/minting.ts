// The controller's throughput alone (`--backends local,kube --only minting`): per round and per
// `--controller-workers` value, a fresh backend of each kind (the first alternating), 1,000 digest-pinned
// Services minted (service-minting.ts), then the backend stopped, timing how long `npm run kube` takes to
// exit after SIGTERM. An empty workers value passes no flag: the controller's default (or, with
// `--package-root` on an older checkout, whatever it did before the flag existed). Each round ends with the
// baseline: the API's own pace for a Service's three writes, on a fresh backend of each kind with no controller
// (service-minting.ts' paceServices), so every live/s figure has the pace it is measured against.
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { BACKENDS, type BackendName, startBackend } from "./backends";
import { mintServices, paceServices, SERVICES, type ServiceMinting } from "./service-minting";
import { median, round } from "./stats";

export interface MintingOptions {
  packageRoot: string;
  /** `--controller-workers` values; undefined: no flag. */
  workers: (number | undefined)[];
  reps: number;
  services?: number;
  /** Default both. */
  backends?: readonly BackendName[];
}

export interface MintingRow extends ServiceMinting {
  rep: number;
  backend: BackendName;
  workers: number | "default";
  /** From SIGTERM (or the local server's stop) to the backend's exit. */
  stopMs: number;
  loadavg: number;
}

export interface PaceRow {
  rep: number;
  backend: BackendName;
  /** Services per second the API takes the three writes of (paceServices). */
  servicesPerSecond: number;
  loadavg: number;
}

export async function benchMinting(options: MintingOptions) {
  const rows: MintingRow[] = [];
  const paces: PaceRow[] = [];
  const services = options.services ?? SERVICES;
  // An older checkout (`--package-root`) may not have the controller-less backend: no baseline then.
  const paced = existsSync(path.join(options.packageRoot, "dist/bench/bare-backend.js"));
  for (let rep = 0; rep < options.reps; rep++) {
    for (const workers of options.workers) {
      const chosen = options.backends ?? BACKENDS;
      const sides = rep % 2 === 0 ? chosen : [...chosen].reverse();
      for (const name of sides) {
        const args = workers === undefined ? [] : ["--controller-workers", String(workers)];
        const backend = await startBackend(name, options.packageRoot, args);
        let minted: ServiceMinting;
        let stopMs: number;
        try {
          minted = await mintServices(backend, services);
        } finally {
          const begun = performance.now();
          await backend.stop();
          stopMs = round(performance.now() - begun, 0);
        }
        const row: MintingRow = {
          rep,
          backend: name,
          workers: workers ?? "default",
          stopMs,
          loadavg: round(loadavg()[0] ?? 0, 1),
          ...minted,
        };
        rows.push(row);
        console.error(
          `  round ${rep + 1}, ${name}, workers ${row.workers}: ${row.live}/${services} live, ${row.livePerSecond ?? "-"}/s, create to live p50 ${row.createToLiveP50Ms} ms, p99 ${row.createToLiveP99Ms} ms, revisions ${row.revisions}, stopped in ${stopMs} ms (load ${row.loadavg})`,
        );
      }
    }
    for (const name of paced ? (options.backends ?? BACKENDS) : []) {
      const backend = await startBackend(name, options.packageRoot, [], { controller: false });
      try {
        const servicesPerSecond = await paceServices(backend, services);
        paces.push({ rep, backend: name, servicesPerSecond, loadavg: round(loadavg()[0] ?? 0, 1) });
        console.error(
          `  round ${rep + 1}, ${name}, no controller: the API takes a Service's three writes for ${servicesPerSecond} Services/s (load ${paces.at(-1)?.loadavg})`,
        );
      } finally {
        await backend.stop();
      }
    }
  }
  const paceOf = (backend: BackendName) => {
    const mine = paces.filter((pace) => pace.backend === backend).map((pace) => pace.servicesPerSecond);
    return mine.length === 0 ? undefined : round(median(mine), 1);
  };
  const summary = options.workers.flatMap((workers) =>
    (options.backends ?? BACKENDS).map((backend) => {
      const mine = rows.filter((row) => row.backend === backend && row.workers === (workers ?? "default"));
      const of = (pick: (row: MintingRow) => number | undefined) =>
        round(median(mine.map(pick).filter((value): value is number => value !== undefined)), 1);
      return {
        backend,
        workers: workers ?? "default",
        rounds: mine.length,
        livePerSecond: of((row) => row.livePerSecond),
        createToLiveP50Ms: of((row) => row.createToLiveP50Ms),
        createToLiveP99Ms: of((row) => row.createToLiveP99Ms),
        createdPerSecond: of((row) => row.createdPerSecond),
        maxStopMs: Math.max(...mine.map((row) => row.stopMs)),
        apiPace: paceOf(backend),
      };
    }),
  );
  console.log(`\nServices minted (${services}, digest-pinned, created at concurrency 16), medians:`);
  console.log(
    "backend | workers | live/s | API pace (/s) | live ÷ pace | create to live p50 / p99 (ms) | creates/s | slowest stop (ms)",
  );
  for (const row of summary)
    console.log(
      `${row.backend} | ${row.workers} | ${row.livePerSecond} | ${row.apiPace ?? "-"} | ${row.apiPace === undefined ? "-" : `${round(row.livePerSecond / row.apiPace, 2)}×`} | ${row.createToLiveP50Ms} / ${row.createToLiveP99Ms} | ${row.createdPerSecond} | ${row.maxStopMs}`,
    );
  return { minting: { rows, paces, summary } };
}
