// The events recorder (controller/recorder.ts) against the real local server: one Event per reason and
// object with its series counted, and a bounded number of Event objects however often an object fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../controller/logger";
import { EventRecorder, RECORDER_DEFAULTS } from "../../controller/recorder";
import { type Client, createClient } from "../../sdk/client";
import type { ApiObject } from "../../sdk/client/types";
import { startTestServer, type TestServer } from "../helpers/server";

const SERVICE = {
  apiVersion: "compute.example.dev/v1alpha1",
  kind: "Service",
  metadata: { name: "loop", uid: "0a9e-loop" },
  spec: {},
} as ApiObject;

describe("the events recorder", () => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer();
    client = createClient({ baseUrl: server.url });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const listed = async () =>
    (await server.call("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=loop"))
      .body.items as { reason: string; series?: { count: number } }[];

  it("counts 500 occurrences of one reason in one Event's series", async () => {
    const recorder = new EventRecorder({
      events: client.events,
      instance: "test",
      log: silentLogger,
      seriesFlushMs: 50,
    });
    for (let i = 0; i < 500; i++) recorder.record(SERVICE, "Warning", "BuildFailed", "Build", `failure ${i}`);
    await recorder.flush();
    await expect.poll(async () => (await listed()).map((event) => event.series?.count ?? 1)).toEqual([500]);
    recorder.stop();
  });

  it("writes at most its burst of Events for one object, however many reasons a loop goes through", async () => {
    let dropped = 0;
    const recorder = new EventRecorder({
      events: client.events,
      instance: "test",
      log: silentLogger,
      onOutcome: (outcome) => {
        if (outcome === "dropped") dropped++;
      },
    });
    const other = { ...SERVICE, metadata: { ...SERVICE.metadata, uid: "0a9e-other" } } as ApiObject;
    for (let i = 0; i < 200; i++) recorder.record(other, "Warning", `Reason${i}`, "Reconcile", "again");
    await recorder.flush();
    const all = await listed();
    // The 500-failure series of the first test, and the burst of this object.
    expect(all.length).toBe(1 + RECORDER_DEFAULTS.burst);
    expect(dropped).toBe(200 - RECORDER_DEFAULTS.burst);
    console.log(`200 reasons on one object: ${all.length - 1} Events written, ${dropped} dropped`);
    recorder.stop();
  });

  it("writes one at a time in the order recorded, and drops what is recorded past its queue", async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const written: string[] = [];
    const events = {
      ...client.events,
      create: async (event: Parameters<Client["events"]["create"]>[0]) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        try {
          return await client.events.create(event);
        } finally {
          inFlight--;
          written.push(event.regarding.name ?? "");
        }
      },
    };
    let dropped = 0;
    const recorder = new EventRecorder({
      events,
      instance: "test",
      log: silentLogger,
      maxQueued: 20,
      onOutcome: (outcome) => {
        if (outcome === "dropped") dropped++;
      },
    });
    const names = Array.from({ length: 30 }, (_, i) => `queued-${i}`);
    for (const name of names) {
      const object = { ...SERVICE, metadata: { name, uid: `uid-${name}` } } as ApiObject;
      recorder.record(object, "Normal", "RevisionMinted", "Mint", "minted");
    }
    await recorder.flush();
    expect(mostInFlight).toBe(1);
    expect(written).toEqual(names.slice(0, 20));
    expect(dropped).toBe(10);
    recorder.stop();
  });
});
