// The controller's work on one backend: SERVICES Services created at concurrency 16 (an OCI source pinned by
// digest, so nothing is resolved and no registry is asked), and when each one's revision is live. The
// controller mints the ServiceRevision, then writes the Service's status with `latestRevision` and
// `liveRevision` in one write; a watch on Services (opened before the first create, from a list's
// resourceVersion) sees that write, and its arrival is the Service's "live" time. Each backend runs its
// controller as a user runs it: the local server's embedded one, and `dist/kube/main.js`'s, in its process as
// its own service account.
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "undici";
import { desiredRevision } from "../controller/revision";
import {
  acceptedCondition,
  DEFAULT_GATEWAY,
  egressCondition,
  liveRevisionCondition,
  serviceStatus,
} from "../controller/status";
import type { ApiObject } from "../sdk/client/types";
import { applyDefaults, type ServiceSpec } from "../sdk/schema";
import type { Backend } from "./backends";
import { batch, CONCURRENCY, pathOf, request } from "./server-load";
import { percentile, round } from "./stats";

export const SERVICES = 1_000;
/** How long after the last create every revision may take to be live before the round gives up on it. */
const LIVE_WAIT_MS = 300_000;
const SERVICE_SPEC = {
  source: { oci: { repo: "registry.bench.invalid/team/app", digest: `sha256:${"cd".repeat(32)}` } },
  template: { spec: { runtime: { compatibilityDate: "2026-01-01" } } },
};

/** The create of one benchmark Service, the body both the minting rounds and the pace send. */
function servicePayload(name: string): string {
  return JSON.stringify({
    apiVersion: "compute.example.dev/v1alpha1",
    kind: "Service",
    metadata: { name },
    spec: SERVICE_SPEC,
  });
}

export interface ServiceMinting {
  services: number;
  concurrency: number;
  /** Services created per second (the creates alone, their answers). */
  createdPerSecond: number;
  /** Services whose revision the watch saw live within the wait. */
  live: number;
  /** From the first create sent to the last Service seen live (undefined: not all were live in time). */
  livePerSecond: number | undefined;
  /** From a Service's create being sent to its status naming a live revision, over the Services seen live. */
  createToLiveP50Ms: number;
  createToLiveP99Ms: number;
  /** ServiceRevisions a Service controls once all were live (each Service's one, nothing more). */
  revisions: number;
  /** How often the watch on Services was ended by the server and resumed. */
  watchResumed: number;
}

interface WatchedObject {
  metadata: { name: string; resourceVersion: string; ownerReferences?: { kind: string }[] };
  status?: { latestRevision?: string; liveRevision?: string };
}

interface LiveWatch {
  /** performance.now() when each Service was first seen with its revision live. */
  live: Map<string, number>;
  resumed: () => number;
  /** Rejects when the watch fails (an ERROR event, an answer other than 200 or 429). */
  failed: Promise<never>;
  close: () => Promise<void>;
}

/** A watch on Services from `version`, resumed from the last version seen when the server ends it. */
function watchLive(backend: Backend, version: string): LiveWatch {
  const { ca, token } = backend.credentials;
  const client = new Client(backend.url, { bodyTimeout: 0, ...(ca !== undefined && { connect: { ca } }) });
  const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const live = new Map<string, number>();
  const abort = new AbortController();
  let resumed = -1;
  let from = version;
  const seen = (object: WatchedObject) => {
    from = object.metadata.resourceVersion;
    const status = object.status;
    if (status?.latestRevision && status.liveRevision && !live.has(object.metadata.name))
      live.set(object.metadata.name, performance.now());
  };
  const run = async () => {
    while (!abort.signal.aborted) {
      const response = await client.request({
        method: "GET",
        path: `${pathOf("Service")}?watch=true&allowWatchBookmarks=true&resourceVersion=${from}`,
        headers,
        signal: abort.signal,
      });
      if (response.statusCode === 429) {
        // kube-apiserver's answer while a kind's watch cache fills.
        await response.body.dump();
        await sleep(1_000);
        continue;
      }
      if (response.statusCode !== 200)
        throw new Error(`watch on Services: ${response.statusCode} ${await response.body.text()}`);
      resumed++;
      let rest = "";
      for await (const chunk of response.body) {
        rest += (chunk as Buffer).toString("utf8");
        let start = 0;
        for (let end = rest.indexOf("\n"); end !== -1; end = rest.indexOf("\n", start)) {
          const line = rest.slice(start, end);
          start = end + 1;
          if (line.trim() === "") continue;
          const event = JSON.parse(line) as { type: string; object: WatchedObject & { message?: string } };
          if (event.type === "ERROR") throw new Error(`watch on Services: ${event.object.message}`);
          seen(event.object);
        }
        rest = rest.slice(start);
      }
    }
  };
  const failed = run().then(
    () => new Promise<never>(() => {}),
    (error: unknown) => {
      if (abort.signal.aborted) return new Promise<never>(() => {});
      throw error;
    },
  );
  // Awaited through `failed` only while the round waits; never an unhandled rejection meanwhile.
  failed.catch(() => {});
  return {
    live,
    resumed: () => Math.max(0, resumed),
    failed,
    close: async () => {
      abort.abort();
      await client.destroy();
    },
  };
}

export async function mintServices(backend: Backend, services = SERVICES): Promise<ServiceMinting> {
  const servicesPath = pathOf("Service");
  const listed = JSON.parse(await request(backend.dispatcher, "GET", `${servicesPath}?limit=1`)) as {
    metadata: { resourceVersion: string };
  };
  const watch = watchLive(backend, listed.metadata.resourceVersion);
  try {
    const name = (i: number) => `minted-${String(i).padStart(5, "0")}`;
    const sent = new Map<string, number>();
    const firstSent = performance.now();
    const creates = await batch(0, services, CONCURRENCY, async (i) => {
      sent.set(name(i), performance.now());
      await request(backend.dispatcher, "POST", servicesPath, servicePayload(name(i)));
    });
    const lastCreate = performance.now();
    const waited = (async () => {
      while (watch.live.size < services && performance.now() - lastCreate < LIVE_WAIT_MS) await sleep(20);
    })();
    await Promise.race([waited, watch.failed]);
    const latencies = [...watch.live].map(([service, at]) => at - (sent.get(service) as number));
    const lastLive = Math.max(...watch.live.values());
    const revisions = JSON.parse(await request(backend.dispatcher, "GET", pathOf("ServiceRevision"))) as {
      items: WatchedObject[];
    };
    const owned = revisions.items.filter((revision) =>
      revision.metadata.ownerReferences?.some((owner) => owner.kind === "Service"),
    );
    return {
      services,
      concurrency: CONCURRENCY,
      createdPerSecond: round(services / (creates.ms / 1000), 0),
      live: watch.live.size,
      livePerSecond:
        watch.live.size === services ? round(services / ((lastLive - firstSent) / 1000), 1) : undefined,
      createToLiveP50Ms: round(percentile(latencies, 50), 0),
      createToLiveP99Ms: round(percentile(latencies, 99), 0),
      revisions: owned.length,
      watchResumed: watch.resumed(),
    };
  } finally {
    await watch.close();
  }
}

/**
 * The API's own pace for what a Service costs it, on a backend with no controller: each Service created, then
 * the revision the controller would mint for it and the status it would write (the same objects, built by
 * the controller's functions), the three writes in turn, 16 Services at a time. Services per second: the
 * most a controller could make live, were its own work free.
 */
export async function paceServices(backend: Backend, services = SERVICES): Promise<number> {
  const servicesPath = pathOf("Service");
  const paced = await batch(0, services, CONCURRENCY, async (i) => {
    const name = `paced-${String(i).padStart(5, "0")}`;
    const answer = await request(backend.dispatcher, "POST", servicesPath, servicePayload(name));
    const service = JSON.parse(answer) as ApiObject;
    const spec = applyDefaults("Service", service.spec) as unknown as ServiceSpec;
    const { repo, digest } = SERVICE_SPEC.source.oci;
    const revision = desiredRevision(service, spec.template, { repo, digest });
    await request(backend.dispatcher, "POST", pathOf("ServiceRevision"), JSON.stringify(revision));
    const minted = revision.metadata.name;
    const status = serviceStatus({
      generation: service.metadata.generation ?? 1,
      latestRevision: minted,
      liveRevision: minted,
      conditions: [
        acceptedCondition({ minted, runs: `${repo}@${digest}` }),
        egressCondition(spec.template.spec.egress, new Set([DEFAULT_GATEWAY])),
        liveRevisionCondition(undefined, minted),
      ],
      previous: undefined,
      now: new Date().toISOString(),
    });
    const statusPath = `${pathOf("Service", name)}/status`;
    await request(backend.dispatcher, "PUT", statusPath, JSON.stringify({ ...service, status }));
  });
  return round(services / (paced.ms / 1000), 1);
}
