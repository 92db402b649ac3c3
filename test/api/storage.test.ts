import { describe, expect, it } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { KINDS } from "../../sdk/schema";
import { type ObjectStore, openStore, type WatchEvent } from "../../server/storage";
import { closeAfterEachTest, factories, opener, proxy, reasonOf, stores, tempDir } from "./storage-fixtures";

closeAfterEachTest();

describe.each(Object.entries(factories))("the %s ObjectStore", (_name, open) => {
  const fresh = opener(open);

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
