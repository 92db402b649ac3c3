import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type StoredObject } from "../../server/storage";
import { call, manifest, pathOf, startTestServer } from "../helpers/server";
import { SECRET_SPECS, SECRETS, VALID_SPECS } from "./fixtures";

const REPO_ROOT = resolve(__dirname, "../..");

let dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exampledev-data-"));
  dirs.push(dir);
  return dir;
}

/** `node server/main.ts` (TypeScript through ts-node) with the Node that runs the tests. */
async function spawnServer(dir: string): Promise<{ url: string; child: ChildProcess; stdout: () => string }> {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register", "server/main.ts", "--port", "0", "--data", dir, "--log-level", "warn"],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)));
  });
  return { url, child, stdout: () => stdout };
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

  it("finishes a Proxy deletion that a restart interrupted", async () => {
    const dir = dataDir();
    const first = await startTestServer({ storage: { dir }, proxyDeletionGraceMs: 60_000 });
    await first.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "draining", {}) });
    expect((await first.call("DELETE", pathOf("Proxy", "draining"))).status).toBe(202);
    await first.close();

    const second = await startTestServer({ storage: { dir }, proxyDeletionGraceMs: 50 });
    try {
      await expect.poll(() => second.store.get("Proxy", "draining")).toBeUndefined();
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
      manifest("Service", "web", VALID_SPECS.Service) as StoredObject,
    );
    const { name, uid } = service.metadata;
    interrupted.create(
      "ServiceRevision",
      manifest("ServiceRevision", "web-r1", VALID_SPECS.ServiceRevision, {
        ownerReferences: [{ apiVersion: service.apiVersion, kind: "Service", name, uid, controller: true }],
      }) as StoredObject,
    );
    interrupted.create(
      "ServiceRevision",
      manifest("ServiceRevision", "loose", VALID_SPECS.ServiceRevision) as StoredObject,
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
    const first = await spawnServer(dir);
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

    const second = await spawnServer(dir);
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
    const first = await spawnServer(dir);
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

    const second = await spawnServer(dir);
    const listed = await call(second.url, "GET", pathOf("Proxy"));
    const stored = new Set(
      listed.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
    );
    expect(acknowledged.filter((name) => !stored.has(name))).toEqual([]);
    second.child.kill("SIGKILL");
    await once(second.child, "exit");
  }, 90_000);

  it("prints the listening line once and stops cleanly on SIGTERM", async () => {
    const server = await spawnServer(dataDir());
    expect((await call(server.url, "GET", "/healthz")).status).toBe(200);
    server.child.kill("SIGTERM");
    const [code] = await once(server.child, "exit");
    expect(code).toBe(0);
    expect(server.stdout().match(/listening on/g)).toHaveLength(1);
  });
});
