import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { PROXY_DRAIN_FINALIZER } from "../../sdk/schema";
import { openStore } from "../../server/storage";
import { call, manifest, pathOf, startTestServer } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";
import { SECRET_SPECS, SECRETS, VALID_SPECS } from "./fixtures";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exampledev-data-"));
  dirs.push(dir);
  return dir;
}

/** The server as a process on `dir`, once it listens. */
async function startProcess(dir: string) {
  const server = spawnServer(["--data", dir]);
  return { ...server, url: await server.url };
}

describe("persistence", () => {
  it("keeps every object, its secrets and the resourceVersion sequence across a restart", async () => {
    const dir = dataDir();
    const first = await startTestServer({ storage: { dir } });
    for (const kind of ["Proxy", "Service", "ServiceRevision"] as const) {
      expect(
        (await first.call("POST", pathOf(kind), { body: manifest(kind, "kept", SECRET_SPECS[kind]) })).status,
      ).toBe(201);
    }
    await first.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "removed", {}) });
    await first.idle();
    const before = Object.fromEntries(
      (["Proxy", "Service", "ServiceRevision"] as const).map((kind) => [kind, first.store.get(kind, "kept")]),
    );
    first.store.delete("Proxy", "removed");
    const lastVersion = Number(first.store.resourceVersion());
    await first.close();

    const second = await startTestServer({ storage: { dir } });
    try {
      for (const kind of ["Proxy", "Service", "ServiceRevision"] as const) {
        expect(second.store.get(kind, "kept")).toEqual(before[kind]);
      }
      expect(second.store.get("Service", "kept")?.spec).toMatchObject({
        source: { oci: { credentials: { passwordData: SECRETS.password } } },
      });
      expect((await second.call("GET", pathOf("Proxy", "removed"))).status).toBe(404);
      const next = await second.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "next", {}) });
      expect(Number(next.body.metadata.resourceVersion)).toBeGreaterThan(lastVersion);
    } finally {
      await second.close();
    }
  });

  it("finishes a Proxy deletion that a restart interrupted: the restarted controller ends the drain", async () => {
    const dir = dataDir();
    const first = await startTestServer({ storage: { dir }, proxyDeletionGraceMs: 2_000 });
    await first.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "draining", {}) });
    const marked = await first.call("DELETE", pathOf("Proxy", "draining"));
    expect(marked.status).toBe(200);
    expect(marked.body.metadata).toMatchObject({
      deletionGracePeriodSeconds: 0,
      finalizers: [PROXY_DRAIN_FINALIZER],
    });
    await first.close();

    // The drain is the controller's setting: the restarted one's (50 ms) ends it.
    const second = await startTestServer({ storage: { dir }, proxyDeletionGraceMs: 50 });
    try {
      await expect.poll(() => second.store.get("Proxy", "draining"), { timeout: 5_000 }).toBeUndefined();
    } finally {
      await second.close();
    }
  });

  it("finishes a cascading deletion that a crash interrupted", async () => {
    const dir = dataDir();
    // A store without the server's garbage collector stands for a server killed between deleting a
    // Service and deleting what it owns.
    const interrupted = openStore({ dir });
    const service = interrupted.create(
      "Service",
      manifest("Service", "web", VALID_SPECS.Service) as ApiObject,
    );
    const { name, uid } = service.metadata;
    interrupted.create(
      "ServiceRevision",
      manifest("ServiceRevision", "web-r1", VALID_SPECS.ServiceRevision, {
        ownerReferences: [{ apiVersion: service.apiVersion, kind: "Service", name, uid, controller: true }],
      }) as ApiObject,
    );
    interrupted.create(
      "ServiceRevision",
      manifest("ServiceRevision", "loose", VALID_SPECS.ServiceRevision) as ApiObject,
    );
    interrupted.delete("Service", "web");
    interrupted.close();

    const server = await startTestServer({ storage: { dir } });
    try {
      expect(server.store.list("ServiceRevision").map((object) => object.metadata.name)).toEqual(["loose"]);
    } finally {
      await server.close();
    }
  });

  it("refuses to start a second server on a data directory in use", async () => {
    const dir = dataDir();
    const first = await startTestServer({ storage: { dir } });
    try {
      await expect(startTestServer({ storage: { dir } })).rejects.toThrow(/in use by another server/);
    } finally {
      await first.close();
    }
  });

  it("loses no acknowledged write when the process is killed with SIGKILL", async () => {
    const dir = dataDir();
    const first = await startProcess(dir);
    const names = Array.from({ length: 25 }, (_, i) => `acked-${String(i).padStart(2, "0")}`);
    for (const name of names) {
      const reply = await call(first.url, "POST", pathOf("Proxy"), { body: manifest("Proxy", name, {}) });
      expect(reply.status).toBe(201);
    }
    const service = await call(first.url, "POST", pathOf("Service"), {
      body: manifest("Service", "acked-service", VALID_SPECS.Service),
    });
    expect(service.status).toBe(201);
    first.child.kill("SIGKILL");
    await once(first.child, "exit");

    const second = await startProcess(dir);
    const listed = await call(second.url, "GET", pathOf("Proxy"));
    expect(listed.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(
      names,
    );
    const read = await call(second.url, "GET", pathOf("Service", "acked-service"));
    expect(read.body.metadata.uid).toBe(service.body.metadata.uid);
    second.child.kill("SIGKILL");
    await once(second.child, "exit");
  });

  it("loses no acknowledged write among concurrent ones (group commit) when killed with SIGKILL mid-burst", async () => {
    const dir = dataDir();
    const first = await startProcess(dir);
    const exited = once(first.child, "exit");
    const names = Array.from({ length: 300 }, (_, i) => `burst-${String(i).padStart(3, "0")}`);
    const acknowledged: string[] = [];
    // 300 creates at once; the server is killed while most are in flight, after the 40th acknowledgement.
    await Promise.all(
      names.map(async (name) => {
        const reply = await call(first.url, "POST", pathOf("Proxy"), {
          body: manifest("Proxy", name, {}),
        }).catch(() => undefined);
        if (reply?.status !== 201) return;
        acknowledged.push(name);
        if (acknowledged.length === 40) first.child.kill("SIGKILL");
      }),
    );
    await exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);

    const second = await startProcess(dir);
    const listed = await call(second.url, "GET", pathOf("Proxy"));
    const stored = new Set(
      listed.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
    );
    expect(acknowledged.filter((name) => !stored.has(name))).toEqual([]);
    second.child.kill("SIGKILL");
    await once(second.child, "exit");
  }, 90_000);

  it("prints the listening line once and stops cleanly on SIGTERM", async () => {
    const server = await startProcess(dataDir());
    expect((await call(server.url, "GET", "/healthz")).status).toBe(200);
    server.child.kill("SIGTERM");
    const [code] = await once(server.child, "exit");
    expect(code).toBe(0);
    expect(server.stdout().match(/listening on/g)).toHaveLength(1);
  });
});
