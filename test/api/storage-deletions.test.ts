import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { type ApiError, ConflictError } from "../../sdk/errors";
import { KINDS } from "../../sdk/schema";
import { openStore, type WatchEvent } from "../../server/storage";
import { Store } from "../../server/storage/store";
import type { Journal } from "../../server/storage/types";
import { closeAfterEachTest, factories, opener, proxy, reasonOf, stores, tempDir } from "./storage-fixtures";

closeAfterEachTest();

describe.each(Object.entries(factories))("the %s ObjectStore's deletions", (_name, open) => {
  const fresh = opener(open);

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
