import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { ApiError, ConflictError } from "../../sdk/errors";
import { KINDS } from "../../sdk/schema";
import { type ObjectStore, openStore, type WatchEvent } from "../../server/storage";
import { Store } from "../../server/storage/store";
import type { Journal } from "../../server/storage/types";

const proxy = (name: string, spec: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: KINDS.Proxy.apiVersion,
  kind: "Proxy",
  metadata: { name },
  spec,
});

const reasonOf = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    return error instanceof ApiError ? error.reason : error;
  }
  return "no error";
};

const dirs: string[] = [];
const stores: ObjectStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exampledev-store-"));
  dirs.push(dir);
  return dir;
}

type OnListenerError = (error: unknown) => void;
const factories = {
  memory: (onListenerError?: OnListenerError) => openStore("memory", onListenerError),
  sqlite: (onListenerError?: OnListenerError) => openStore({ dir: tempDir() }, onListenerError),
};

describe.each(Object.entries(factories))("the %s ObjectStore", (_name, open) => {
  const fresh = (onListenerError?: OnListenerError) => {
    const store = open(onListenerError);
    stores.push(store);
    return store;
  };

  it("sets uid, resourceVersion, generation 1 and creationTimestamp on create", () => {
    const created = fresh().create("Proxy", proxy("a", { provider: "cloud" }));
    expect(created.metadata).toMatchObject({ name: "a", generation: 1, resourceVersion: "1" });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/Z$/);
    expect(created.spec).toEqual({ provider: "cloud" });
  });

  it("refuses a second object of the same kind and name with AlreadyExists", () => {
    const store = fresh();
    store.create("Proxy", proxy("a"));
    expect(reasonOf(() => store.create("Proxy", proxy("a")))).toBe("AlreadyExists");
    expect(store.create("Service", { ...proxy("a"), kind: "Service" }).metadata.name).toBe("a");
  });

  it("increases resourceVersion with every write across kinds, and reports the latest", () => {
    const store = fresh();
    const versions = [
      store.create("Proxy", proxy("a")).metadata.resourceVersion,
      store.create("Service", { ...proxy("s"), kind: "Service" }).metadata.resourceVersion,
      withStatus(store, "a", { phase: "Ready" }).metadata.resourceVersion,
      store.delete("Service", "s")?.metadata.resourceVersion,
    ].map(Number);
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    expect(new Set(versions).size).toBe(versions.length);
    expect(store.resourceVersion()).toBe(String(versions.at(-1)));
  });

  it("lists by name", () => {
    const store = fresh();
    for (const name of ["c", "a", "b"]) store.create("Proxy", proxy(name));
    expect(store.list("Proxy").map((object) => object.metadata.name)).toEqual(["a", "b", "c"]);
    expect(store.list("Service")).toEqual([]);
  });

  it("updates optimistically: a stale or missing resourceVersion is a Conflict, a missing object NotFound", () => {
    const store = fresh();
    const created = store.create("Proxy", proxy("a"));
    const updated = store.update("Proxy", { ...created, spec: { provider: "onprem" } });
    expect(reasonOf(() => store.update("Proxy", created))).toBe("Conflict");
    const { resourceVersion: _dropped, ...metadata } = updated.metadata;
    expect(reasonOf(() => store.update("Proxy", { ...updated, metadata }))).toBe("Conflict");
    expect(reasonOf(() => store.update("Proxy", proxy("ghost")))).toBe("NotFound");
  });

  it("raises generation on spec changes only, and keeps uid, creationTimestamp and status", () => {
    const store = fresh();
    const created = store.create("Proxy", proxy("a"));
    const ready = withStatus(store, "a", { phase: "Ready" });
    expect(ready.metadata.generation).toBe(1);
    const relabelled = store.update("Proxy", {
      ...ready,
      metadata: { ...ready.metadata, labels: { a: "b" } },
    });
    expect(relabelled.metadata.generation).toBe(1);
    const changed = store.update("Proxy", {
      ...relabelled,
      spec: { provider: "onprem" },
      status: { phase: "Hacked" },
    });
    expect(changed.metadata).toMatchObject({
      generation: 2,
      uid: created.metadata.uid,
      creationTimestamp: created.metadata.creationTimestamp,
      labels: { a: "b" },
    });
    expect(changed.status).toEqual({ phase: "Ready" });
  });

  it("never clears a deletionTimestamp once set", () => {
    const store = fresh();
    const created = store.create("Proxy", proxy("a"));
    const marked = store.update("Proxy", {
      ...created,
      metadata: { ...created.metadata, deletionTimestamp: "2030-01-01T00:00:00Z" },
    });
    const { deletionTimestamp: _dropped, ...metadata } = marked.metadata;
    expect(store.update("Proxy", { ...marked, metadata }).metadata.deletionTimestamp).toBe(
      "2030-01-01T00:00:00Z",
    );
  });

  it("writes status without touching spec or generation", () => {
    const store = fresh();
    store.create("Proxy", proxy("a", { provider: "cloud" }));
    const updated = withStatus(store, "a", { phase: "Ready" });
    expect(updated).toMatchObject({
      spec: { provider: "cloud" },
      status: { phase: "Ready" },
      metadata: { generation: 1 },
    });
    expect(reasonOf(() => store.replaceStatus("Proxy", { ...proxy("ghost"), status: {} }))).toBe("NotFound");
  });

  it("replaceStatus stores the status and managedFields only, on the stored resourceVersion, and survives a reopen", () => {
    const dir = tempDir();
    const store = openStore({ dir });
    const created = store.create("Proxy", {
      ...proxy("a", { provider: "cloud" }),
      metadata: { name: "a", labels: { a: "b" } },
    });
    const managedFields = [
      {
        manager: "m",
        operation: "Update" as const,
        apiVersion: KINDS.Proxy.apiVersion,
        fieldsType: "FieldsV1" as const,
        fieldsV1: { "f:status": { "f:phase": {} } },
        subresource: "status",
      },
    ];
    const written = store.replaceStatus("Proxy", {
      ...created,
      metadata: { ...created.metadata, labels: { c: "d" }, generation: 7, managedFields },
      spec: { provider: "onprem" },
      status: { phase: "Ready" },
    });
    expect(written).toEqual({
      ...created,
      metadata: { ...created.metadata, resourceVersion: written.metadata.resourceVersion, managedFields },
      status: { phase: "Ready" },
    });
    expect(Number(written.metadata.resourceVersion)).toBe(Number(created.metadata.resourceVersion) + 1);
    expect(reasonOf(() => store.replaceStatus("Proxy", { ...created, status: {} }))).toBe("Conflict");
    expect(reasonOf(() => store.replaceStatus("Proxy", proxy("ghost")))).toBe("NotFound");
    // Without a status, the write removes it.
    const { status: _status, ...bare } = written;
    expect(store.replaceStatus("Proxy", bare)).not.toHaveProperty("status");
    store.close();
    const reopened = openStore({ dir });
    stores.push(reopened);
    expect(reopened.get("Proxy", "a")).toEqual({
      ...bare,
      metadata: { ...bare.metadata, resourceVersion: String(Number(written.metadata.resourceVersion) + 1) },
    });
  });

  it("deletes and returns the object; deleting again returns undefined", () => {
    const store = fresh();
    store.create("Proxy", proxy("a"));
    expect(store.delete("Proxy", "a")?.metadata.name).toBe("a");
    expect(store.get("Proxy", "a")).toBeUndefined();
    expect(store.delete("Proxy", "a")).toBeUndefined();
  });

  it("hands out copies: mutating a result changes nothing stored", () => {
    const store = fresh();
    const created = store.create("Proxy", proxy("a", { provider: "cloud" }));
    created.spec.provider = "mutated";
    const read = store.get("Proxy", "a") as ApiObject;
    read.spec.provider = "mutated";
    expect(store.get("Proxy", "a")?.spec.provider).toBe("cloud");
  });

  it("tells subscribers of every committed write, in order, until they unsubscribe", () => {
    const store = fresh();
    const events: string[] = [];
    const unsubscribe = store.subscribe((event: WatchEvent) =>
      events.push(
        `${event.type} ${event.kind}/${event.object.metadata.name}@${event.object.metadata.resourceVersion}`,
      ),
    );
    const created = store.create("Proxy", proxy("a"));
    store.update("Proxy", { ...created, spec: { provider: "onprem" } });
    store.delete("Proxy", "a");
    unsubscribe();
    store.create("Proxy", proxy("b"));
    expect(events).toEqual(["ADDED Proxy/a@1", "MODIFIED Proxy/a@2", "DELETED Proxy/a@3"]);
  });

  it("keeps a write and the other listeners when one listener throws", () => {
    const errors: unknown[] = [];
    const store = fresh((error) => errors.push(error));
    const seen: string[] = [];
    store.subscribe(() => {
      throw new Error("listener bug");
    });
    store.subscribe((event) => seen.push(event.object.metadata.name));
    store.create("Proxy", proxy("a"));
    expect(store.get("Proxy", "a")).toBeDefined();
    expect(seen).toEqual(["a"]);
    expect(errors).toHaveLength(1);
  });
});

/** The Proxy's status written as the `/status` subresource writes it. */
function withStatus(store: ObjectStore, name: string, status: Record<string, unknown>): ApiObject {
  const current = store.get("Proxy", name);
  if (!current) throw new Error(`Proxy ${name} is not stored`);
  return store.replaceStatus("Proxy", { ...current, status });
}

describe("the durable store", () => {
  it("finds its objects and its resourceVersion again after reopening, even when the last write was a delete", () => {
    const dir = tempDir();
    const first = openStore({ dir });
    first.create("Proxy", proxy("kept", { provider: "cloud" }));
    first.create("Proxy", proxy("gone"));
    first.delete("Proxy", "gone");
    const versionBefore = Number(first.resourceVersion());
    first.close();

    const second = openStore({ dir });
    stores.push(second);
    expect(second.get("Proxy", "kept")?.spec).toEqual({ provider: "cloud" });
    expect(second.get("Proxy", "gone")).toBeUndefined();
    expect(Number(second.resourceVersion())).toBe(versionBefore);
    expect(Number(second.create("Proxy", proxy("next")).metadata.resourceVersion)).toBe(versionBefore + 1);
  });

  it("refuses a second store on the same data directory", () => {
    const dir = tempDir();
    const first = openStore({ dir });
    stores.push(first);
    expect(() => openStore({ dir })).toThrow(/in use by another server/);
  });
});

describe.each(Object.entries(factories))("the %s ObjectStore's deletions", (_name, open) => {
  const fresh = (onListenerError?: OnListenerError) => {
    const store = open(onListenerError);
    stores.push(store);
    return store;
  };

  it("deletes only when the preconditions hold, checking and removing in one step", () => {
    const store = fresh();
    const created = store.create("Proxy", proxy("a"));
    const { uid, resourceVersion } = created.metadata;
    expect(reasonOf(() => store.delete("Proxy", "a", { uid: "other" }))).toBe("Conflict");
    expect(reasonOf(() => store.delete("Proxy", "a", { uid, resourceVersion: "999" }))).toBe("Conflict");
    expect(store.get("Proxy", "a")?.metadata.uid).toBe(uid);
    expect(store.delete("Proxy", "a", { uid, resourceVersion })?.metadata.uid).toBe(uid);
    expect(store.delete("Proxy", "a", { uid })).toBeUndefined();
  });

  it("words a failed precondition as Kubernetes does", () => {
    const store = fresh();
    const { uid } = store.create("Proxy", proxy("a")).metadata;
    try {
      store.delete("Proxy", "a", { uid: "other" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ApiError).status.message).toBe(
        `Operation cannot be fulfilled on proxies.${KINDS.Proxy.group} "a": Precondition failed: UID in precondition: other, UID in object meta: ${uid}`,
      );
      expect((error as ApiError).status.details).toEqual({
        name: "a",
        group: KINDS.Proxy.group,
        kind: "proxies",
      });
    }
  });

  it("deletes many in one commit, each with its own resourceVersion, passing over what it must not touch", () => {
    const store = fresh();
    const a = store.create("Proxy", proxy("a"));
    store.create("Proxy", proxy("b"));
    store.create("Proxy", proxy("c"));
    const commits: string[][] = [];
    store.subscribeCommits((events) =>
      commits.push(
        events.map(
          (event) => `${event.type} ${event.object.metadata.name}@${event.object.metadata.resourceVersion}`,
        ),
      ),
    );
    const deleted = store.deleteMany([
      { kind: "Proxy", name: "c" },
      { kind: "Proxy", name: "ghost" },
      { kind: "Proxy", name: "b", uid: "another-incarnation" },
      { kind: "Proxy", name: "a", uid: a.metadata.uid },
      { kind: "Proxy", name: "c" },
    ]);
    expect(deleted.map((object) => object?.metadata.name)).toEqual([
      "c",
      undefined,
      undefined,
      "a",
      undefined,
    ]);
    expect(commits).toEqual([["DELETED c@4", "DELETED a@5"]]);
    expect(store.resourceVersion()).toBe("5");
    expect(store.list("Proxy").map((object) => object.metadata.name)).toEqual(["b"]);
    expect(store.deleteMany([{ kind: "Proxy", name: "ghost" }])).toEqual([undefined]);
    expect(commits).toHaveLength(1);
  });

  it("delivers a write made by a listener after every listener has seen the one that caused it", () => {
    const store = fresh();
    store.subscribe((event) => {
      if (event.type === "ADDED" && event.object.metadata.name === "a") store.create("Proxy", proxy("b"));
    });
    const seen: string[] = [];
    store.subscribe((event) =>
      seen.push(`${event.object.metadata.name}@${event.object.metadata.resourceVersion}`),
    );
    store.create("Proxy", proxy("a"));
    expect(seen).toEqual(["a@1", "b@2"]);
  });

  it("hands each commit listener its own copies, and survives one that throws", () => {
    const errors: unknown[] = [];
    const store = fresh((error) => errors.push(error));
    store.subscribeCommits((events) => {
      (events[0] as WatchEvent).object.spec.provider = "mutated";
      throw new Error("listener bug");
    });
    const seen: unknown[] = [];
    store.subscribeCommits((events) => seen.push(events[0]?.object.spec.provider));
    store.create("Proxy", proxy("a", { provider: "cloud" }));
    expect(seen).toEqual(["cloud"]);
    expect(store.get("Proxy", "a")?.spec.provider).toBe("cloud");
    expect(errors).toHaveLength(1);
  });
});

describe("a deletion the journal fails to commit", () => {
  const failing: Journal = {
    load: () => ({ objects: [], resourceVersion: 0 }),
    put: () => {},
    remove: () => {
      throw new Error("disk full");
    },
    close: () => {},
  };

  it("changes nothing in memory and tells no listener", () => {
    const store = new Store({ journal: failing });
    store.create("Proxy", proxy("a"));
    store.create("Proxy", proxy("b"));
    const events: WatchEvent[] = [];
    store.subscribe((event) => events.push(event));
    expect(() =>
      store.deleteMany([
        { kind: "Proxy", name: "a" },
        { kind: "Proxy", name: "b" },
      ]),
    ).toThrow("disk full");
    expect(() => store.delete("Proxy", "a")).toThrow("disk full");
    expect(store.list("Proxy").map((object) => object.metadata.name)).toEqual(["a", "b"]);
    expect(store.resourceVersion()).toBe("2");
    expect(events).toEqual([]);
  });
});

describe("the durable store's file", () => {
  it("keeps the resourceVersion of a deleteMany across reopening", () => {
    const dir = tempDir();
    const first = openStore({ dir });
    for (const name of ["a", "b", "c"]) first.create("Proxy", proxy(name));
    first.deleteMany([
      { kind: "Proxy", name: "a" },
      { kind: "Proxy", name: "b" },
    ]);
    first.close();
    const second = openStore({ dir });
    stores.push(second);
    expect(second.resourceVersion()).toBe("5");
    expect(second.list("Proxy").map((object) => object.metadata.name)).toEqual(["c"]);
  });

  it("is rewritten once on opening when an older version left deleted values in free space", () => {
    const dir = tempDir();
    const leftover = `leftover-${randomBytes(16).toString("hex")}`;
    const db = new DatabaseSync(join(dir, "store.db"));
    db.exec(`
      PRAGMA journal_mode = WAL; PRAGMA secure_delete = OFF;
      CREATE TABLE objects (kind TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, name)) WITHOUT ROWID;
      CREATE TABLE store_version (id INTEGER PRIMARY KEY CHECK (id = 1), resource_version INTEGER NOT NULL);
      INSERT INTO store_version (id, resource_version) VALUES (1, 7);
    `);
    db.prepare("INSERT INTO objects VALUES ('Proxy', 'gone', ?)").run(
      JSON.stringify(proxy("gone", { secret: leftover.repeat(200) })),
    );
    db.exec("PRAGMA wal_checkpoint(TRUNCATE); DELETE FROM objects; PRAGMA wal_checkpoint(TRUNCATE);");
    db.close();
    expect(readFileSync(join(dir, "store.db")).includes(leftover)).toBe(true);

    const store = openStore({ dir });
    stores.push(store);
    expect(store.resourceVersion()).toBe("7");
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file)).includes(leftover)).toBe(false);
  });
});
