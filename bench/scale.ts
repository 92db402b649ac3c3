// `npm run bench -- --backends local,kube`: the local server against the project's API on kube-apiserver
// (backend-load.ts), and Pulumi runs of this provider on both against pulumi-kubernetes on kube
// (scale-runs.ts), printed as one table of rows by backend with ratios. `--only services`: the Pulumi runs
// alone, of N Services that each wait for their revision to be live (scale-programs.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { installPeerPlugin, PEER_VERSION, peerToolchain } from "../scripts/lib/peer";
import { type BackendRound, measureBackends } from "./backend-load";
import { type Backend, type BackendName, startBackend, totalRss } from "./backends";
import { PEER_WAIT_FOR, type ScaleWorkload } from "./scale-programs";
import {
  CONTENDERS,
  measurePulumiScale,
  PEER_CLIENT_LIMITS,
  type ScaleContext,
  type ScaleFigures,
  warmUpContenders,
} from "./scale-runs";
import { CONCURRENCY, medianLoad, OBJECTS } from "./server-load";
import { SERVICES, type ServiceMinting } from "./service-minting";
import { median, round, table } from "./stats";

export interface ScaleOptions {
  packageRoot: string;
  /** Rounds of the server section. */
  serverReps: number;
  /** Pulumi runs: each N with its repetitions. */
  pulumi: readonly { n: number; reps: number }[];
  /** What the Pulumi runs declare: Proxies and ServiceRevisions, or Services that wait for their revision. */
  workload: ScaleWorkload;
  server: boolean;
}

export async function benchBackends(packageRoot: string, reps: number) {
  const rounds: BackendRound[] = [];
  for (let rep = 0; rep < reps; rep++) {
    rounds.push(await measureBackends(packageRoot, rep));
    console.error(`  rep ${rep + 1}/${reps} measured (load average ${rounds.at(-1)?.loadavg})`);
  }
  const of = (name: BackendName) => rounds.map((run) => run.backends[name]);
  const summarize = (name: BackendName) => ({
    startMs: round(median(of(name).map((run) => run.startMs)), 0),
    rssStartedMb: round(median(of(name).map((run) => totalRss(run.rssStartedMb))), 1),
    rssMb: round(median(of(name).map((run) => totalRss(run.rssMb))), 1),
    /** Per process, of the last round. */
    rssByProcess: of(name).at(-1)?.rssMb ?? {},
    create: medianLoad(of(name).map((run) => run.create)),
    fullListMs: round(median(of(name).map((run) => run.fullListMs)), 1),
    pagedList: medianLoad(of(name).map((run) => run.pagedList)),
    watchCreatesPerSecond: round(median(of(name).map((run) => run.watch.createsPerSecond)), 0),
    // Over the rounds whose watches received every event within the wait.
    lastEventAfterMs: round(median(of(name).flatMap((run) => run.watch.lastEventAfterMs ?? [])), 0),
    watchEvents: of(name).map((run) => `${run.watch.events}/${run.watch.watches * run.watch.creates}`),
    watchClients: of(name).map((run) => run.watch.clients),
    services: summarizeServices(of(name).map((run) => run.services)),
  });
  const ratio = (pick: (run: BackendRound) => number) => round(median(rounds.map(pick)), 2);
  return {
    rounds,
    medians: { local: summarize("local"), kube: summarize("kube") },
    kubeOverLocal: {
      create: ratio((run) => run.kubeOverLocal.create),
      pagedList: ratio((run) => run.kubeOverLocal.pagedList),
      fullList: ratio((run) => run.kubeOverLocal.fullList),
      // Over the rounds in which both sides saw every Service live.
      servicesLive: round(
        median(rounds.map((run) => run.kubeOverLocal.servicesLive).filter((value) => !Number.isNaN(value))),
        2,
      ),
    },
  };
}

/** Medians over rounds; rates and latencies only over the rounds that saw every Service live. */
function summarizeServices(rounds: readonly ServiceMinting[]) {
  const complete = rounds.filter((run) => run.livePerSecond !== undefined);
  return {
    services: rounds[0]?.services ?? SERVICES,
    createdPerSecond: round(median(rounds.map((run) => run.createdPerSecond)), 0),
    livePerSecond: round(median(complete.map((run) => run.livePerSecond as number)), 1),
    createToLiveP50Ms: round(median(complete.map((run) => run.createToLiveP50Ms)), 0),
    createToLiveP99Ms: round(median(complete.map((run) => run.createToLiveP99Ms)), 0),
    /** Per round: Services seen live of those created, and revisions the Services control. */
    live: rounds.map((run) => `${run.live}/${run.services}`),
    revisions: rounds.map((run) => run.revisions),
  };
}

type BackendFiguresSummary = Awaited<ReturnType<typeof benchBackends>>;

async function benchPulumiScale(options: ScaleOptions): Promise<ScaleFigures[]> {
  const peer = peerToolchain();
  const workDir = mkdtempSync(path.join(tmpdir(), "exampledev-bench-scale-"));
  const started: Backend[] = [];
  try {
    const pulumiHome = path.join(workDir, "pulumi-home");
    installPeerPlugin(peer, pulumiHome);
    const local = await startBackend("local", options.packageRoot);
    started.push(local);
    const kube = await startBackend("kube", options.packageRoot);
    started.push(kube);
    const context: ScaleContext = {
      packageRoot: options.packageRoot,
      workload: options.workload,
      local,
      kube,
      peer,
      tempDir: mkdtempSync(path.join(workDir, "tmp-")),
      pulumiHome,
      workDir,
    };
    const first = options.pulumi[0];
    if (first !== undefined) await warmUpContenders(context, first.n);
    const figures: ScaleFigures[] = [];
    for (const { n, reps } of options.pulumi) figures.push(await measurePulumiScale(context, n, reps));
    return figures;
  } finally {
    for (const backend of started) await backend.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `a ÷ b` as printed: two decimals and the sign. */
const times = (value: number) => (Number.isNaN(value) ? "" : `${value}×`);

function printScale(server: BackendFiguresSummary | undefined, pulumi: readonly ScaleFigures[]): void {
  console.log(
    "\nScale: the local server (one Node process) and the project's API on kube-apiserver (etcd + " +
      "kube-apiserver + the Node process serving the admission webhook), fresh for each round; medians. " +
      "'kube ÷ local' is kube's cost over local's (above 1: local is cheaper), 'provider ÷ peer' this " +
      "provider's time over pulumi-kubernetes' on the same kube-apiserver (below 1: this provider is faster).",
  );
  const rows: (string | number)[][] = [
    ["row", "local", "kube", `pulumi-kubernetes ${PEER_VERSION} on kube`, "kube ÷ local", "provider ÷ peer"],
  ];
  if (server !== undefined) {
    const { local, kube } = server.medians;
    const costRatio = (a: number, b: number) => times(round(b / a, 2));
    rows.push(
      ["start to ready (ms)", local.startMs, kube.startMs, "", costRatio(local.startMs, kube.startMs), ""],
      [
        "RSS once ready (MB)",
        local.rssStartedMb,
        kube.rssStartedMb,
        "",
        costRatio(local.rssStartedMb, kube.rssStartedMb),
        "",
      ],
      [
        `create ${OBJECTS / 1000}k Proxies, concurrency ${CONCURRENCY} (/s)`,
        local.create.opsPerSecond,
        kube.create.opsPerSecond,
        "",
        times(server.kubeOverLocal.create),
        "",
      ],
      [
        "  create p50 / p99 (ms)",
        `${local.create.p50Ms} / ${local.create.p99Ms}`,
        `${kube.create.p50Ms} / ${kube.create.p99Ms}`,
        "",
        "",
        "",
      ],
      [
        `full list of ${OBJECTS / 1000}k (ms)`,
        local.fullListMs,
        kube.fullListMs,
        "",
        times(server.kubeOverLocal.fullList),
        "",
      ],
      [
        "list, page of 100 of 10k, p50 (ms)",
        local.pagedList.p50Ms,
        kube.pagedList.p50Ms,
        "",
        times(server.kubeOverLocal.pagedList),
        "",
      ],
      [
        "creates with 100 watches reading (/s)",
        local.watchCreatesPerSecond,
        kube.watchCreatesPerSecond,
        "",
        costRatio(kube.watchCreatesPerSecond, local.watchCreatesPerSecond),
        "",
      ],
      [
        "  last event after last create (ms)",
        local.lastEventAfterMs,
        kube.lastEventAfterMs,
        "",
        costRatio(local.lastEventAfterMs, kube.lastEventAfterMs),
        "",
      ],
      [
        `RSS after ${OBJECTS / 1000}k (MB)`,
        local.rssMb,
        kube.rssMb,
        "",
        costRatio(local.rssMb, kube.rssMb),
        "",
      ],
      [
        `create ${local.services.services} Services, concurrency ${CONCURRENCY} (/s)`,
        local.services.createdPerSecond,
        kube.services.createdPerSecond,
        "",
        costRatio(kube.services.createdPerSecond, local.services.createdPerSecond),
        "",
      ],
      [
        "  Services live, first create to last live (/s)",
        local.services.livePerSecond,
        kube.services.livePerSecond,
        "",
        times(server.kubeOverLocal.servicesLive),
        "",
      ],
      [
        "  create to revision live p50 / p99 (ms)",
        `${local.services.createToLiveP50Ms} / ${local.services.createToLiveP99Ms}`,
        `${kube.services.createToLiveP50Ms} / ${kube.services.createToLiveP99Ms}`,
        "",
        costRatio(local.services.createToLiveP50Ms, kube.services.createToLiveP50Ms),
        "",
      ],
    );
  }
  for (const figures of pulumi) {
    const what = figures.workload === "services" ? `${figures.n} Services` : `N=${figures.n}`;
    for (const operation of figures.operations) {
      rows.push([
        `pulumi ${operation}, ${what} (s, ${figures.reps} rep${figures.reps === 1 ? "" : "s"})`,
        ...CONTENDERS.map((contender) => figures.medians[contender][operation] ?? ""),
        times(figures.ratios.kubeOverLocal[operation] ?? Number.NaN),
        times(figures.ratios.providerOverPeer[operation] ?? Number.NaN),
      ]);
    }
  }
  console.log(table(rows));
  if (server !== undefined) {
    const processes = Object.entries(server.medians.kube.rssByProcess)
      .map(([name, mb]) => `${name} ${mb}`)
      .join(", ");
    console.log(`kube's RSS after ${OBJECTS / 1000}k by process (MB, last round): ${processes}`);
    console.log(
      `watch events received of expected, per round: local ${server.medians.local.watchEvents.join(", ")}; ` +
        `kube ${server.medians.kube.watchEvents.join(", ")}`,
    );
    const clients = (name: BackendName) =>
      server.medians[name].watchClients
        .map(
          ({ opened, refused, endedByServer, expired, errors }) =>
            `${opened}/${refused}/${endedByServer}/${expired}/${errors}`,
        )
        .join(", ");
    console.log(
      `watch clients opened/refused/ended by the server/expired (410)/other ERROR, per round: local ${clients("local")}; kube ${clients("kube")}`,
    );
    const { local, kube } = server.medians;
    console.log(
      `Services live of created, per round: local ${local.services.live.join(", ")}; kube ${kube.services.live.join(", ")}` +
        ` (revisions they control: local ${local.services.revisions.join(", ")}; kube ${kube.services.revisions.join(", ")})`,
    );
  }
  if (pulumi.length > 0) {
    console.log(
      `pulumi-kubernetes client limits: ${Object.entries(PEER_CLIENT_LIMITS)
        .map(([name, value]) => `${name}=${value}`)
        .join(", ")} (this provider has none; the engine runs 4 × GOMAXPROCS steps at once for both)`,
    );
  }
  printServicesWaited(pulumi);
}

/** Services workload: how many Services each `up` returned live, and whether the comparison stands. */
function printServicesWaited(pulumi: readonly ScaleFigures[]): void {
  const services = pulumi.filter((figures) => figures.workload === "services");
  if (services.length === 0) return;
  console.log(
    `The peer's Services carry pulumi.com/waitFor: ${PEER_WAIT_FOR}; this provider's Service waits for its ` +
      "revision to be live. Services whose state names a live revision after `up`, per rep:",
  );
  for (const figures of services) {
    const per = (contender: (typeof CONTENDERS)[number]) =>
      figures.runs.flatMap((run) => (run.live === undefined ? [] : [`${run.live[contender]}/${figures.n}`]));
    const counts = CONTENDERS.map((contender) => `${contender} ${per(contender).join(", ")}`).join("; ");
    const verdict = figures.waited
      ? "every up waited"
      : "VOID: some up returned before its Services were live";
    console.log(`  ${figures.n} Services: ${counts} (${verdict})`);
  }
}

export async function benchScale(options: ScaleOptions): Promise<Record<string, unknown>> {
  let server: BackendFiguresSummary | undefined;
  if (options.server) {
    console.error(`Backends: local and kube, ${options.serverReps} rounds`);
    server = await benchBackends(options.packageRoot, options.serverReps);
  }
  let pulumi: ScaleFigures[] = [];
  if (options.pulumi.length > 0) {
    console.error(
      `Pulumi runs on both backends and the peer: ${options.pulumi.map(({ n, reps }) => `N=${n} × ${reps}`).join(", ")}`,
    );
    pulumi = await benchPulumiScale(options);
  }
  printScale(server, pulumi);
  return { backends: server, pulumi, peer: { version: PEER_VERSION, clientLimits: PEER_CLIENT_LIMITS } };
}
