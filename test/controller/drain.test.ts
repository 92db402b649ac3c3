import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { drainStep } from "../../controller/drain";
import { PROXY_DRAIN_FINALIZER } from "../../sdk/schema";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

// The Proxy drain the controller holds (controller/drain.ts) on the local server, which runs the controller
// in its own process: the finalizer from the create on, kept, and taken off once a deleted Proxy drained.

const GRACE_MS = 700;
const MERGE = "application/merge-patch+json";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function create(running: TestServer, name: string, metadata: Record<string, unknown> = {}) {
  const created = await running.call("POST", pathOf("Proxy"), {
    body: manifest("Proxy", name, {}, metadata),
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** Deletes the Proxy and resolves with how long it stayed, in ms, polling every 20 ms. */
async function timeToGo(running: TestServer, name: string): Promise<number> {
  const start = Date.now();
  const marked = await running.call("DELETE", pathOf("Proxy", name));
  expect(marked.status, marked.text).toBe(200);
  expect(marked.body.metadata).toMatchObject({ deletionGracePeriodSeconds: 0 });
  await expect
    .poll(async () => (await running.call("GET", pathOf("Proxy", name))).status, {
      interval: 20,
      timeout: 10_000,
    })
    .toBe(404);
  return Date.now() - start;
}

describe("the Proxy drain", () => {
  it("a Proxy carries the drain finalizer from its create on, and goes once it has drained", async () => {
    server = await startTestServer({ drainProxies: true, proxyDeletionGraceMs: GRACE_MS });
    const created = await create(server, "edge");
    expect(created.metadata.finalizers).toEqual([PROXY_DRAIN_FINALIZER]);
    // The controller writes the Proxy's readiness once after the create (Ready: it holds the finalizer),
    // then nothing more: a sync of the unchanged Proxy writes nothing.
    await server.idle();
    const read = await server.call("GET", pathOf("Proxy", "edge"));
    expect(read.body.status).toMatchObject({
      observedGeneration: 1,
      conditions: [
        { type: "Ready", status: "True", reason: "Ready", observedGeneration: 1 },
        { type: "Reconciling", status: "False", reason: "Reconciled" },
        { type: "Stalled", status: "False", reason: "Reconciled" },
      ],
    });
    expect(read.body.metadata.generation).toBe(created.metadata.generation);
    await server.idle();
    const again = await server.call("GET", pathOf("Proxy", "edge"));
    expect(again.body.metadata.resourceVersion).toBe(read.body.metadata.resourceVersion);

    const stayed = await timeToGo(server, "edge");
    expect(stayed).toBeGreaterThanOrEqual(GRACE_MS - 5);
    console.log(`a Proxy drained for ${GRACE_MS} ms went ${stayed} ms after its DELETE`);
  });

  it("writes the readiness without touching what other managers own (a status patch, not a PUT of its cache's copy)", async () => {
    server = await startTestServer({ drainProxies: true, proxyDeletionGraceMs: GRACE_MS });
    const applied = await server.call("PATCH", `${pathOf("Proxy", "owned")}?fieldManager=kubectl`, {
      body: JSON.stringify(
        manifest("Proxy", "owned", { shutdown: { drainTimeout: "10s" } }, { labels: { team: "edge" } }),
      ),
      contentType: "application/apply-patch+yaml",
    });
    expect(applied.status, applied.text).toBe(201);
    await server.idle();
    const read = await server.call("GET", pathOf("Proxy", "owned"));
    expect(read.body.status.observedGeneration).toBe(1);
    expect(read.body.metadata.labels).toEqual({ team: "edge" });
    const kubectl = read.body.metadata.managedFields.find(
      (entry: { manager: string }) => entry.manager === "kubectl",
    );
    expect(kubectl.fieldsV1).toEqual(applied.body.metadata.managedFields[0].fieldsV1);
  });

  it("other kinds, and every kind when the drain is off, are created without it", async () => {
    server = await startTestServer({ drainProxies: false });
    expect((await create(server, "plain")).metadata.finalizers).toBeUndefined();
    const gone = await server.call("DELETE", pathOf("Proxy", "plain"));
    expect(gone.body).toMatchObject({ kind: "Status", status: "Success" });
  });

  it("a replace that leaves the finalizer out gets it back from the controller", async () => {
    server = await startTestServer({ drainProxies: true, proxyDeletionGraceMs: GRACE_MS });
    await create(server, "edge");
    // As it stands once the controller has written its readiness (a PUT needs the current version).
    await server.idle();
    const created = (await server.call("GET", pathOf("Proxy", "edge"))).body;
    const { finalizers: _dropped, ...metadata } = created.metadata;
    const replaced = await server.call("PUT", pathOf("Proxy", "edge"), {
      body: { ...created, metadata: { ...metadata, labels: { team: "edge" } } },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.metadata.finalizers).toBeUndefined();
    await expect
      .poll(async () => (await server?.call("GET", pathOf("Proxy", "edge")))?.body.metadata.finalizers)
      .toEqual([PROXY_DRAIN_FINALIZER]);
  });

  it("takes off only its own finalizer: another keeps the Proxy until its owner removes it", async () => {
    server = await startTestServer({ drainProxies: true, proxyDeletionGraceMs: 100 });
    await create(server, "held", { finalizers: ["example.dev/backup"] });
    const marked = await server.call("DELETE", pathOf("Proxy", "held"));
    expect(marked.body.metadata.finalizers).toEqual(["example.dev/backup", PROXY_DRAIN_FINALIZER]);
    await expect
      .poll(async () => (await server?.call("GET", pathOf("Proxy", "held")))?.body.metadata.finalizers)
      .toEqual(["example.dev/backup"]);
    const released = await server.call("PATCH", pathOf("Proxy", "held"), {
      body: { metadata: { finalizers: null } },
      contentType: MERGE,
    });
    expect(released.status, released.text).toBe(200);
    await expect.poll(async () => (await server?.call("GET", pathOf("Proxy", "held")))?.status).toBe(404);
  });

  it("a user may skip the drain by taking the finalizer off a Proxy already marked", async () => {
    server = await startTestServer({ drainProxies: true, proxyDeletionGraceMs: 3_600_000 });
    await create(server, "urgent");
    await server.call("DELETE", pathOf("Proxy", "urgent"));
    const released = await server.call("PATCH", pathOf("Proxy", "urgent"), {
      body: { metadata: { finalizers: null } },
      contentType: MERGE,
    });
    expect(released.status, released.text).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", "urgent"))).status).toBe(404);
  });

  it("a server stopped mid-drain drains what is left after its restart, not the whole drain again", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "drain-restart-"));
    try {
      const first = await startTestServer({
        storage: { dir },
        drainProxies: true,
        proxyDeletionGraceMs: 4_000,
      });
      server = first;
      await create(first, "edge");
      const deletedAt = Date.now();
      await first.call("DELETE", pathOf("Proxy", "edge"));
      await first.close();
      server = undefined;
      const second = await startTestServer({
        storage: { dir },
        drainProxies: true,
        proxyDeletionGraceMs: 4_000,
      });
      server = second;
      expect((await second.call("GET", pathOf("Proxy", "edge"))).status).toBe(200);
      await expect
        .poll(async () => (await second.call("GET", pathOf("Proxy", "edge"))).status, {
          interval: 50,
          timeout: 15_000,
        })
        .toBe(404);
      const stayed = Date.now() - deletedAt;
      // At least the drain since the mark; at most the drain plus the second the mark's timestamp rounds to.
      expect(stayed).toBeGreaterThanOrEqual(4_000 - 5);
      expect(stayed).toBeLessThan(4_000 + 1_000 + 1_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("drainStep", () => {
  const at = Date.parse("2026-11-27T10:00:00Z");
  const proxy = (metadata: Record<string, unknown>) => ({
    metadata: { name: "edge", uid: "u1", ...metadata },
  });
  const held = { finalizers: [PROXY_DRAIN_FINALIZER] };
  const marked = { ...held, deletionTimestamp: "2026-11-27T10:00:00Z" };

  it("adds the finalizer to a Proxy not being deleted that lacks it, and only then", () => {
    expect(drainStep(proxy({}), 1000, at, undefined)).toEqual({ action: "add" });
    expect(drainStep(proxy(held), 1000, at, undefined)).toEqual({ action: "none" });
    // Deleted before anyone added it: nothing ran that could drain.
    expect(drainStep(proxy({ deletionTimestamp: "2026-11-27T10:00:00Z" }), 1000, at, undefined)).toEqual({
      action: "none",
    });
  });

  it("counts the drain from the earlier of the sighting and the end of the mark's second", () => {
    // Seen 200 ms into the mark's second: due 1 s after the sighting.
    expect(drainStep(proxy(marked), 1000, at + 300, at + 200)).toEqual({ action: "wait", delayMs: 900 });
    expect(drainStep(proxy(marked), 1000, at + 1200, at + 200)).toEqual({ action: "remove" });
    // First seen long after (a controller started since): the mark's second bounds it.
    expect(drainStep(proxy(marked), 1000, at + 1500, at + 1400)).toEqual({ action: "wait", delayMs: 500 });
    expect(drainStep(proxy(marked), 0, at + 1, at + 1)).toEqual({ action: "remove" });
  });
});
