// The two backends under the same load, one round on fresh ones: start time and RSS, watched creates (100
// watches reading every event while 2,000 ServiceRevisions are created, and how long after the last create
// the last event arrives), 10k Proxy creates at concurrency 16, lists of the 10k, then the controller's
// minting (1,000 Services, service-minting.ts), last so that the rows before it meet no Services. Both
// backends are up at once and take turns (alternating chunks, or alternating order), so load from elsewhere
// meets both alike.
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { type Backend, type BackendName, startBackend, totalRss } from "./backends";
import { batch, body, CONCURRENCY, type LoadResult, OBJECTS, paired, pathOf, request } from "./server-load";
import { mintServices, type ServiceMinting } from "./service-minting";
import { median, round } from "./stats";
import { startClients, type WatchCounts } from "./watch-load";

const WATCHES = 100;
const WATCHED_CREATES = 2_000;
/** How long the watches may take to receive every event after the last create. */
const DELIVERY_WAIT_MS = 60_000;
const FULL_LISTS = 6;
const REVISION_SPEC = {
  runtime: { compatibilityDate: "2026-01-01" },
  bundle: { repo: "registry.bench.invalid/team/app", digest: `sha256:${"ab".repeat(32)}` },
};

export interface WatchDelivery {
  watches: number;
  creates: number;
  createsPerSecond: number;
  /** Events the watches received, of watches × creates. */
  events: number;
  /** From the last create's answer to the last event received (undefined: not all arrived in time). */
  lastEventAfterMs: number | undefined;
  /**
   * Watches answered 200, refused otherwise, ended by the server (then resumed), and ended by an ERROR event:
   * 410 Expired (not resumed) or another (asked again after 1 s), as the clients saw.
   */
  clients: { opened: number; refused: number; endedByServer: number; expired: number; errors: number };
}

export interface BackendFigures {
  startMs: number;
  rssStartedMb: Record<string, number>;
  watch: WatchDelivery;
  create: LoadResult;
  fullListMs: number;
  pagedList: LoadResult;
  rssMb: Record<string, number>;
  services: ServiceMinting;
}

export interface BackendRound {
  loadavg: number;
  backends: Record<BackendName, BackendFigures>;
  /** Medians of per-chunk ratios, kube's time ÷ local's (above 1: local is faster). */
  kubeOverLocal: {
    create: number;
    pagedList: number;
    fullList: number;
    /** Local's Services live per second ÷ kube's (NaN when a side did not see every one live). */
    servicesLive: number;
  };
}

async function watchedCreates(backend: Backend): Promise<WatchDelivery> {
  const watchPath = pathOf("ServiceRevision");
  // From a list's version: without one, kube-apiserver 1.35 first waits for its watch cache to reach etcd's
  // revision (up to 3 s, then a 504 ERROR event) and sends the objects it holds as ADDED events.
  const listed = JSON.parse(await request(backend.dispatcher, "GET", `${watchPath}?limit=1`)) as {
    metadata: { resourceVersion: string };
  };
  const start = listed.metadata.resourceVersion;
  const clients = await startClients(backend.url, WATCHES, "read", watchPath, backend.credentials, start);
  let delivery: Omit<WatchDelivery, "clients">;
  let counts: WatchCounts;
  try {
    const result = await batch(0, WATCHED_CREATES, CONCURRENCY, async (i) => {
      const revision = body("ServiceRevision", `watched-${i}`, REVISION_SPEC);
      await request(backend.dispatcher, "POST", watchPath, revision);
    });
    const expected = WATCHES * WATCHED_CREATES;
    const lastCreate = performance.now();
    let events = (await clients.progress()).events;
    while (events < expected && performance.now() - lastCreate < DELIVERY_WAIT_MS) {
      await sleep(20);
      events = (await clients.progress()).events;
    }
    delivery = {
      watches: WATCHES,
      creates: WATCHED_CREATES,
      createsPerSecond: round(WATCHED_CREATES / (result.ms / 1000), 0),
      events,
      lastEventAfterMs: events >= expected ? round(performance.now() - lastCreate, 0) : undefined,
    };
  } finally {
    counts = await clients.counts();
  }
  const { opened, refused, endedByServer, expired, errors } = counts;
  return { ...delivery, clients: { opened, refused, endedByServer, expired, errors } };
}

/** `sides` in this order when `turn` is even, reversed when odd. */
function inTurn<T>(sides: readonly [T, T], turn: number): readonly T[] {
  return turn % 2 === 0 ? sides : [sides[1], sides[0]];
}

export async function measureBackends(packageRoot: string, rep: number): Promise<BackendRound> {
  const sides = ["local", "kube"] as const;
  const started: Partial<Record<BackendName, Backend>> = {};
  try {
    // One after the other, so neither start competes with the other's.
    for (const name of inTurn(sides, rep)) started[name] = await startBackend(name, packageRoot);
    const backends = started as Record<BackendName, Backend>;
    const rssStarted = { local: backends.local.rss(), kube: backends.kube.rss() };
    const watch = {} as Record<BackendName, WatchDelivery>;
    for (const name of inTurn(sides, rep)) watch[name] = await watchedCreates(backends[name]);

    const create = await paired(sides, OBJECTS, CONCURRENCY, async (side, i) => {
      const name = `proxy-${String(i).padStart(5, "0")}`;
      await request(backends[side].dispatcher, "POST", pathOf("Proxy"), body("Proxy", name, {}));
    });
    const fullLists = { local: [] as number[], kube: [] as number[] };
    const listRatios: number[] = [];
    for (let turn = 0; turn < FULL_LISTS; turn++) {
      for (const side of inTurn(sides, turn)) {
        const begun = performance.now();
        const text = await request(backends[side].dispatcher, "GET", pathOf("Proxy"));
        fullLists[side].push(performance.now() - begun);
        const count = (JSON.parse(text) as { items: unknown[] }).items.length;
        if (count !== OBJECTS)
          throw new Error(`${side}: the full list held ${count} objects, not ${OBJECTS}`);
      }
      listRatios.push((fullLists.kube.at(-1) as number) / (fullLists.local.at(-1) as number));
    }
    const pagedList = await paired(sides, 500, 1, async (side) => {
      await request(backends[side].dispatcher, "GET", `${pathOf("Proxy")}?limit=100`);
    });
    const rssMb = { local: backends.local.rss(), kube: backends.kube.rss() };
    const services = {} as Record<BackendName, ServiceMinting>;
    for (const name of inTurn(sides, rep)) {
      services[name] = await mintServices(backends[name]);
      const { live, livePerSecond, createToLiveP50Ms } = services[name];
      console.error(
        `    ${name}: ${live} Services live, ${livePerSecond ?? "-"}/s, create to live p50 ${createToLiveP50Ms} ms`,
      );
    }
    const figures = (side: BackendName): BackendFigures => ({
      startMs: round(backends[side].startMs, 0),
      rssStartedMb: rssStarted[side],
      watch: watch[side],
      create: create.results[side],
      fullListMs: round(median(fullLists[side]), 1),
      pagedList: pagedList.results[side],
      rssMb: rssMb[side],
      services: services[side],
    });
    const measured = { local: figures("local"), kube: figures("kube") };
    console.error(
      `    start local ${measured.local.startMs} ms, kube ${measured.kube.startMs} ms; ` +
        `RSS after 10k local ${totalRss(measured.local.rssMb)} MB, kube ${totalRss(measured.kube.rssMb)} MB`,
    );
    return {
      loadavg: round(loadavg()[0] ?? 0, 1),
      backends: measured,
      kubeOverLocal: {
        create: create.ratio,
        pagedList: pagedList.ratio,
        fullList: round(median(listRatios), 2),
        servicesLive: round(
          (services.local.livePerSecond ?? Number.NaN) / (services.kube.livePerSecond ?? Number.NaN),
          2,
        ),
      },
    };
  } finally {
    for (const backend of Object.values(started)) await backend.stop();
  }
}
