// The local server's Kubernetes Events (server/routes/events.ts): written in events.k8s.io/v1, read in core
// v1 (and back), selected by field, watched, patched as a series, and gone after their TTL.
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventStore } from "../../server/events/store";
import { startTestServer, type TestServer } from "../helpers/server";

const EVENTS_V1 = "/apis/events.k8s.io/v1/namespaces/default/events";
const CORE = "/api/v1/namespaces/default/events";

const event = (name: string, reason: string, regarding = "web") => ({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name },
  eventTime: "2026-12-02T01:00:00.000000Z",
  reportingController: "example.dev/test",
  reportingInstance: "test-1",
  action: "Mint",
  reason,
  regarding: { apiVersion: "compute.example.dev/v1alpha1", kind: "Service", name: regarding, uid: "u-1" },
  note: `${reason} of ${regarding}`,
  type: "Normal",
});

describe("Events", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("creates in events.k8s.io/v1 and reads the same Event in core v1", async () => {
    const created = await server.call("POST", EVENTS_V1, { body: event("web.1", "RevisionMinted") });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: "events.k8s.io/v1", note: "RevisionMinted of web" });
    const core = await server.call("GET", `${CORE}/web.1`);
    expect(core.body).toMatchObject({
      apiVersion: "v1",
      kind: "Event",
      involvedObject: { kind: "Service", name: "web" },
      message: "RevisionMinted of web",
      reportingComponent: "example.dev/test",
      metadata: { namespace: "default", uid: expect.any(String), resourceVersion: expect.any(String) },
    });
    const again = await server.call("POST", EVENTS_V1, { body: event("web.1", "RevisionMinted") });
    expect(again.status).toBe(409);
  });

  it("refuses an Event without a reason or with an unknown type, naming the field", async () => {
    const reply = await server.call("POST", EVENTS_V1, { body: { ...event("bad.1", ""), type: "Odd" } });
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual([
      "reason",
      "type",
    ]);
  });

  it("selects by the involved object, as kubectl events --for and describe do, in every namespace too", async () => {
    await server.call("POST", EVENTS_V1, { body: event("api.1", "RevisionPromoted", "api") });
    const selected = await server.call(
      "GET",
      `${CORE}?fieldSelector=involvedObject.kind=Service,involvedObject.name=api`,
    );
    expect(selected.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual([
      "api.1",
    ]);
    const everywhere = await server.call("GET", "/api/v1/events?fieldSelector=involvedObject.name=web");
    expect(everywhere.body).toMatchObject({ kind: "EventList", items: [{ metadata: { name: "web.1" } }] });
    const v1 = await server.call("GET", `${EVENTS_V1}?fieldSelector=regarding.name=api`);
    expect(v1.body.items).toHaveLength(1);
  });

  it("patches a series with a merge or strategic merge patch, as recorders do", async () => {
    for (const contentType of ["application/merge-patch+json", "application/strategic-merge-patch+json"]) {
      const reply = await server.call("PATCH", `${EVENTS_V1}/web.1`, {
        body: { series: { count: 3, lastObservedTime: "2026-12-02T01:01:00.000000Z" } },
        contentType,
      });
      expect(reply.status, reply.text).toBe(200);
    }
    expect((await server.call("GET", `${CORE}/web.1`)).body.series).toMatchObject({ count: 3 });
  });

  it("keeps an events.k8s.io Event's note and reason as kube-apiserver does, core v1 writes aside", async () => {
    const changed = await server.call("PATCH", `${EVENTS_V1}/web.1`, {
      body: { note: "another", reason: "Other" },
      contentType: "application/merge-patch+json",
    });
    expect(changed.status).toBe(422);
    expect(changed.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual([
      "reason",
      "note",
    ]);
    const core = await server.call("PATCH", `${CORE}/web.1`, {
      body: { message: "another" },
      contentType: "application/merge-patch+json",
    });
    expect(core.status).toBe(200);
  });

  it("watches: the Events after the version given, then each change", async () => {
    const list = await server.call("GET", CORE);
    const from = list.body.metadata.resourceVersion;
    const answer = await request(`${server.url}${CORE}?watch=true&resourceVersion=${from}`);
    const lines: string[] = [];
    let buffered = "";
    const seen = new Promise<void>((resolve) => {
      answer.body.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split("\n");
        buffered = parts.pop() ?? "";
        lines.push(...parts);
        if (lines.length >= 2) resolve();
      });
    });
    await server.call("POST", EVENTS_V1, { body: event("web.2", "TagResolved") });
    await server.call("DELETE", `${CORE}/web.2`);
    await seen;
    answer.body.destroy();
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(["ADDED", "DELETED"]);
    expect(JSON.parse(lines[0] ?? "{}").object).toMatchObject({ kind: "Event", reason: "TagResolved" });
  });
});

describe("the Event store", () => {
  it("forgets an Event its TTL after its last write, and says so to watches", async () => {
    const store = new EventStore({ ttlMs: 150 });
    const changes: string[] = [];
    store.watch((change) => changes.push(`${change.type} ${change.object.metadata.name}`));
    store.create({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "a", namespace: "default" },
      involvedObject: {},
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const a = store.get("default", "a");
    if (a) store.replace({ ...a, count: 2 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.get("default", "a")).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.get("default", "a")).toBeUndefined();
    expect(changes).toEqual(["ADDED a", "MODIFIED a", "DELETED a"]);
    store.close();
  });

  it("keeps at most maxEvents, dropping the oldest", () => {
    const store = new EventStore({ maxEvents: 3 });
    for (const name of ["a", "b", "c", "d"])
      store.create({
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace: "default" },
        involvedObject: {},
      });
    expect(store.list().map((stored) => stored.metadata.name)).toEqual(["b", "c", "d"]);
    store.close();
  });
});
