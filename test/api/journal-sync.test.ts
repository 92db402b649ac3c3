import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { KINDS } from "../../sdk/schema";
import { openStore } from "../../server/storage";
import { CHECKPOINT_WRITES, SqliteJournal } from "../../server/storage/sqlite";
import { Store } from "../../server/storage/store";
import { FileSync } from "../../server/storage/wal-sync";

// The durable store commits to the WAL without waiting for the disk and syncs the WAL off the event loop:
// nothing counts as durable before a sync that began after its commit has ended, a failed sync is a
// failed commit, and the journal's own checkpoints keep the WAL short.

const proxy = (name: string): ApiObject => ({
  apiVersion: KINDS.Proxy.apiVersion,
  kind: "Proxy",
  metadata: { name },
  spec: {},
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exampledev-journal-sync-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
  for (let i = 0; i < 5; i++) await nextTurn();
  return done;
}

/** Holds every WAL sync until the test lets it go on (the real sync then runs). */
function holdSyncs() {
  const held: (() => void)[] = [];
  const real = FileSync.prototype.sync;
  vi.spyOn(FileSync.prototype, "sync").mockImplementation(function (this: FileSync) {
    return new Promise<void>((resolve) => held.push(resolve)).then(() => real.call(this));
  });
  return {
    count: () => held.length,
    release: () => {
      for (const go of held.splice(0)) go();
    },
  };
}

describe("the durable store's WAL syncs", () => {
  it("is durable only once a sync that began after the commit has ended", async () => {
    const syncs = holdSyncs();
    const store = openStore({ dir: tempDir() });
    cleanups.push(() => store.close());
    store.create("Proxy", proxy("a"));
    const first = store.durable();
    await nextTurn(); // the batch commits; its sync starts and is held
    expect(syncs.count()).toBe(1);
    store.create("Proxy", proxy("b"));
    const second = store.durable();
    expect(await settled(first)).toBe(false);
    expect(syncs.count()).toBe(2); // the second batch's sync began without waiting for the first
    syncs.release();
    await first;
    await second;
    expect(await settled(store.durable())).toBe(true);
  });

  it("takes a failed sync as a failed commit: durable() rejects and later writes are refused", async () => {
    vi.spyOn(FileSync.prototype, "sync").mockRejectedValue(new Error("EIO: the disk went away"));
    const failures: Error[] = [];
    const journal = new SqliteJournal(tempDir(), { onCommitFailure: (error) => failures.push(error) });
    cleanups.push(() => journal.close());
    const store = new Store({ journal });
    store.create("Proxy", proxy("a"));
    await expect(store.durable()).rejects.toThrow(/EIO/);
    expect(failures.map((error) => error.message)).toEqual(["EIO: the disk went away"]);
    expect(() => store.create("Proxy", proxy("b"))).toThrow(/not writable since a commit failed/);
  });

  it("checkpoints every CHECKPOINT_WRITES writes, so the WAL stays short, and loses nothing", async () => {
    const dir = tempDir();
    const store = openStore({ dir });
    const total = 3 * CHECKPOINT_WRITES + 17;
    const walBytes = () => statSync(join(dir, "store.db-wal")).size;
    let beforeFirstCheckpoint = 0;
    let largestWal = 0;
    for (let i = 0; i < total; i++) {
      store.create("Proxy", proxy(`p-${String(i).padStart(5, "0")}`));
      if (i % 50 === 48) {
        await store.durable();
        if (i < CHECKPOINT_WRITES) beforeFirstCheckpoint = walBytes();
        largestWal = Math.max(largestWal, walBytes());
      }
    }
    await store.durable();
    store.close();
    // Written again from its start after each checkpoint: never much more than one interval's worth.
    expect(largestWal).toBeLessThan(1.5 * beforeFirstCheckpoint);
    console.log(
      `WAL before the first checkpoint ${(beforeFirstCheckpoint / 1024).toFixed(0)} KiB; ` +
        `largest over ${total} writes ${(largestWal / 1024).toFixed(0)} KiB`,
    );

    const reopened = openStore({ dir });
    cleanups.push(() => reopened.close());
    expect(reopened.list("Proxy")).toHaveLength(total);
    expect(reopened.resourceVersion()).toBe(String(total));
  });
});
