import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { KINDS } from "../../sdk/schema";
import { buildApp } from "../../server";
import { openStore } from "../../server/storage";
import { SqliteJournal } from "../../server/storage/sqlite";
import { Store } from "../../server/storage/store";
import type { Journal } from "../../server/storage/types";
import { manifest, pathOf } from "../helpers/server";

const proxy = (name: string): ApiObject => ({
  apiVersion: KINDS.Proxy.apiVersion,
  kind: "Proxy",
  metadata: { name },
  spec: {},
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exampledev-group-commit-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Whether the promise has settled after the current turn's microtasks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("group commit in the durable store", () => {
  it("commits the writes of one turn together on the next; durable() resolves after that commit", async () => {
    const dir = tempDir();
    const store = openStore({ dir });
    for (const name of ["a", "b", "c"]) store.create("Proxy", proxy(name));
    const durable = store.durable();
    expect(await settled(durable)).toBe(false);
    await durable;
    store.create("Proxy", proxy("d"));
    store.close(); // commits what is pending

    const reopened = openStore({ dir });
    cleanups.push(() => reopened.close());
    expect(reopened.list("Proxy").map((object) => object.metadata.name)).toEqual(["a", "b", "c", "d"]);
    expect(await settled(reopened.durable())).toBe(true);
  });

  it("undoes only the failing write of a batch; the others are committed", async () => {
    const dir = tempDir();
    const journal = new SqliteJournal(dir);
    journal.put("Proxy", proxy("a"), 1, false);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => journal.put("Proxy", { ...proxy("b"), spec: circular }, 2, false)).toThrow();
    journal.put("Proxy", proxy("c"), 3, false);
    await journal.durable();
    journal.close();

    const reopened = new SqliteJournal(dir);
    cleanups.push(() => reopened.close());
    const { objects, resourceVersion } = reopened.load();
    expect(objects.map(({ object }) => object.metadata.name).sort()).toEqual(["a", "c"]);
    expect(resourceVersion).toBe(3);
  });

  it("reports a failed commit, rejects durable() and refuses every later write (fail-stop)", async () => {
    const failures: Error[] = [];
    const journal = new SqliteJournal(tempDir(), { onCommitFailure: (error) => failures.push(error) });
    cleanups.push(() => journal.close());
    const store = new Store({ journal });
    store.create("Proxy", proxy("a"));
    const durable = store.durable();
    // The commit fails: here the transaction is ended behind the journal's back.
    (journal as unknown as { db: DatabaseSync }).db.exec("ROLLBACK");
    await expect(durable).rejects.toThrow();
    expect(failures).toHaveLength(1);
    await expect(store.durable()).rejects.toThrow();
    expect(() => store.create("Proxy", proxy("b"))).toThrow(/not writable since a commit failed/);
  });

  it("closes while WAL syncs are still running without reporting a failure or losing a commit", async () => {
    for (let round = 0; round < 20; round++) {
      const dir = tempDir();
      const failures: Error[] = [];
      const journal = new SqliteJournal(dir, { onCommitFailure: (error) => failures.push(error) });
      journal.put("Proxy", proxy("a"), 1, false);
      await nextTurn(); // committed; its sync now runs in libuv's thread pool
      journal.close();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(failures, `round ${round}`).toEqual([]);
      const reopened = new SqliteJournal(dir);
      expect(reopened.load().objects.map(({ object }) => object.metadata.name)).toEqual(["a"]);
      reopened.close();
    }
  });
});

/** A journal whose commits the test makes succeed or fail. */
function heldJournal() {
  let pending: { resolve(): void; reject(error: Error): void } | undefined;
  let promise: Promise<void> | undefined;
  const journal: Journal = {
    load: () => ({ objects: [], resourceVersion: 0 }),
    put: () => {
      promise ??= new Promise<void>((resolve, reject) => {
        pending = { resolve, reject };
      });
    },
    remove: () => {},
    durable: () => promise ?? Promise.resolve(),
    close: () => {},
  };
  const finish = (outcome: "commit" | "fail") => {
    if (outcome === "commit") pending?.resolve();
    else pending?.reject(new Error("disk full"));
    promise = undefined;
    pending = undefined;
  };
  return { journal, finish };
}

describe("answers wait for the commit", () => {
  const appWith = (journal: Journal) => {
    const app = buildApp({ store: new Store({ journal }), logLevel: "silent" });
    cleanups.push(() => void app.close());
    return app;
  };
  const create = (name: string) => ({
    method: "POST" as const,
    url: pathOf("Proxy"),
    payload: manifest("Proxy", name, {}),
  });

  it("a write is answered only once its commit is made", async () => {
    const { journal, finish } = heldJournal();
    const app = appWith(journal);
    await app.ready();
    const answer = app.inject(create("a"));
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(await settled(answer)).toBe(false);
    finish("commit");
    expect((await answer).statusCode).toBe(201);
  });

  it("a write whose commit fails is answered 500, never success", async () => {
    const { journal, finish } = heldJournal();
    const app = appWith(journal);
    await app.ready();
    const answer = app.inject(create("a"));
    for (let i = 0; i < 5; i++) await nextTurn();
    finish("fail");
    const reply = await answer;
    expect(reply.statusCode).toBe(500);
    expect(reply.json()).toMatchObject({ kind: "Status", status: "Failure", reason: "InternalError" });
    expect(reply.headers.location).toBeUndefined();
  });
});
