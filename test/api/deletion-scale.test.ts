import { afterEach, describe, expect, it } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { KINDS } from "../../sdk/schema";
import type { ObjectStore } from "../../server/storage";
import { pathOf, startTestServer, type TestServer, useDurableServers } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";

// Performance is printed, never asserted (timings depend on the machine): these tests assert what must
// hold whatever the speed, and log how long it took.

const SERVICES = 1_000;
const STORED = 10_000;

/** A Service with a git source: the controller writes its status once and mints nothing for it. */
const GIT_SPEC = {
  source: {
    git: {
      url: "https://git.example.dev/team/app.git",
      build: { output: { repo: "registry.example.dev/team/app" } },
      triggers: {},
    },
  },
  template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
};

function seed(store: ObjectStore, kind: "Service" | "Proxy", name: string, labels?: Record<string, string>) {
  return store.create(kind, {
    apiVersion: KINDS[kind].apiVersion,
    kind,
    metadata: { name, ...(labels && { labels }) },
    spec: kind === "Service" ? GIT_SPEC : {},
  });
}

/** A revision owned by `owner` (not as its controller, so the Service controller leaves it alone). */
function seedOwned(store: ObjectStore, name: string, owner: ApiObject) {
  const { name: ownerName, uid } = owner.metadata;
  return store.create("ServiceRevision", {
    apiVersion: KINDS.ServiceRevision.apiVersion,
    kind: "ServiceRevision",
    metadata: {
      name,
      ownerReferences: [
        {
          apiVersion: KINDS.Service.apiVersion,
          kind: "Service",
          name: ownerName as string,
          uid: uid as string,
        },
      ],
    },
    spec: VALID_SPECS.ServiceRevision,
  });
}

const durableServer = useDurableServers("scale");
let memoryServer: TestServer | undefined;
afterEach(async () => {
  await memoryServer?.close();
  memoryServer = undefined;
});

describe("deletion at scale", () => {
  it(`deletes a collection of ${SERVICES} Services and their revisions while /healthz keeps answering`, async () => {
    const { server: running } = await durableServer();
    const services = Array.from({ length: SERVICES }, (_, i) =>
      seed(running.store, "Service", `svc-${String(i).padStart(4, "0")}`),
    );
    await running.idle();
    for (const service of services) seedOwned(running.store, `${service.metadata.name}-r1`, service);
    await running.idle();
    expect(running.store.list("ServiceRevision")).toHaveLength(SERVICES);

    // Only answers to /healthz received while the collection was partly deleted count as answered
    // "during" it: a server that deleted the whole collection in one go has no such moment. (The client and
    // the server share this process's event loop, and the store delivers its events as it commits.)
    let deletedServices = 0;
    let firstDeletion: number | undefined;
    let lastDeletion: number | undefined;
    const unsubscribe = running.store.subscribe((event) => {
      if (event.type !== "DELETED") return;
      firstDeletion ??= performance.now();
      lastDeletion = performance.now();
      if (event.kind === "Service") deletedServices++;
    });
    const started = performance.now();
    let finished: number | undefined;
    const deleting = running.call("DELETE", pathOf("Service")).then((answer) => {
      finished = performance.now();
      return answer;
    });
    const healthz: { latencyMs: number; deletedServices: number }[] = [];
    while (finished === undefined) {
      const sent = performance.now();
      const answer = await running.call("GET", "/healthz");
      expect(answer.status).toBe(200);
      healthz.push({ latencyMs: performance.now() - sent, deletedServices });
    }
    const reply = await deleting;
    const finishedAt = finished as number;

    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(SERVICES);
    expect(new Set(reply.body.items.map((item: ApiObject) => item.metadata.name)).size).toBe(SERVICES);
    expect(running.store.list("Service")).toEqual([]);
    expect(running.store.list("ServiceRevision")).toEqual([]);
    unsubscribe();
    const [from, to] = [firstDeletion as number, lastDeletion as number];
    const during = healthz.filter(
      (answer) => answer.deletedServices > 0 && answer.deletedServices < SERVICES,
    );
    const longest = Math.max(...healthz.map((answer) => answer.latencyMs));
    console.log(
      `delete-collection of ${SERVICES} Services (+${SERVICES} owned revisions, durable storage): ` +
        `${(finishedAt - started).toFixed(0)} ms (${(to - from).toFixed(0)} ms from the first deletion to the last); ` +
        `/healthz answered ${during.length} times meanwhile, ` +
        `longest /healthz latency ${longest.toFixed(1)} ms`,
    );
    expect(during.length).toBeGreaterThan(0);
  }, 120_000);

  it(`deletes one Service and its revision among ${STORED} stored objects`, async () => {
    const running = await startTestServer();
    memoryServer = running;
    const keeper = seed(running.store, "Service", "keeper");
    await running.idle();
    const fillers = STORED - 4;
    for (let i = 0; i < fillers / 2; i++) {
      seedOwned(running.store, `keeper-r${i}`, keeper);
      seed(running.store, "Proxy", `proxy-${i}`);
    }
    const timings: number[] = [];
    for (let round = 0; round < 5; round++) {
      const target = seed(running.store, "Service", `target-${round}`);
      seedOwned(running.store, `target-${round}-r1`, target);
      await running.idle();
      const started = performance.now();
      const reply = await running.call("DELETE", pathOf("Service", `target-${round}`));
      timings.push(performance.now() - started);
      expect(reply.status).toBe(200);
      expect(running.store.get("ServiceRevision", `target-${round}-r1`)).toBeUndefined();
    }
    expect(running.store.list("ServiceRevision")).toHaveLength(fillers / 2);
    expect(running.store.get("Service", "keeper")).toBeDefined();
    const sorted = [...timings].sort((a, b) => a - b);
    console.log(
      `one Service DELETE (with its revision) among ${STORED} stored objects (memory storage): ` +
        `median ${sorted[2]?.toFixed(1)} ms, max ${sorted[4]?.toFixed(1)} ms over 5 deletes`,
    );
  }, 120_000);
});
