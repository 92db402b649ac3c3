import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { KindName } from "../../sdk/schema";
import type { Journal } from "./store";
import type { StoredObject } from "./types";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS objects (
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (kind, name)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS store_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    resource_version INTEGER NOT NULL
  );
  INSERT OR IGNORE INTO store_version (id, resource_version) VALUES (1, 0);
`;

/** `PRAGMA user_version` once the file has been rewritten without the free pages of older versions. */
const SCRUBBED_VERSION = 1;

/**
 * Journal in `<dir>/store.db` through Node's built-in SQLite, with WAL and `synchronous=FULL`. Group commit:
 * the first write opens a transaction, the writes that arrive before the next turn of the event loop join
 * it (each in a savepoint, so a failing write leaves the others alone), and one commit (one fsync) makes
 * them all durable; `durable()` resolves once everything written so far is committed, and the server
 * answers no request before that (`http/durability.ts`), so an acknowledged write survives a `kill -9`.
 * A failed commit loses writes the store already shows: the journal then refuses every write and reports
 * the failure to `onCommitFailure`, which stops the server (fail-stop). The resourceVersion counter lives
 * in its own row, so deletes never let it go backwards across a restart.
 *
 * Secret values that leave the store leave the disk too: `secure_delete` zeroes deleted content in the
 * database file, and after a commit that removes or replaces a secret the WAL, which still holds the old
 * page images, is checkpointed into the file and truncated to nothing (`wal_checkpoint(TRUNCATE)`).
 * Opening also checkpoints what a crash left in the WAL, and rewrites (VACUUM) a file written before
 * secure_delete was on, once.
 */
export class SqliteJournal implements Journal {
  private readonly db: DatabaseSync;
  private readonly upsert: StatementSync;
  private readonly deleteRow: StatementSync;
  private readonly setVersion: StatementSync;
  /** A scrub whose checkpoint failed: it is tried again after the next commit. */
  private scrubPending = false;
  /** The open transaction, committed on the next turn of the event loop. */
  private batch: Batch | undefined;
  /** Set once a commit failed: nothing is written after it. */
  private failure: Error | undefined;

  constructor(
    dir: string,
    private readonly onCommitFailure: (error: Error) => void = () => {},
  ) {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "store.db");
    this.db = new DatabaseSync(file);
    try {
      // EXCLUSIVE before WAL: the lock is held for the connection's life (two servers on one data
      // directory would each trust their own in-memory copy), and WAL then needs no shared memory.
      this.db.exec("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
      // secure_delete is per connection; temp_store keeps VACUUM's copy of the data off the disk.
      this.db.exec("PRAGMA secure_delete = ON; PRAGMA temp_store = MEMORY;");
      this.db.exec(SCHEMA);
      this.scrubOnOpen();
    } catch (error) {
      this.db.close();
      if (isBusy(error))
        throw new Error(`${file} is in use by another server; give each server its own --data`);
      throw error;
    }
    this.upsert = this.db.prepare(
      "INSERT INTO objects (kind, name, body) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET body = excluded.body",
    );
    this.deleteRow = this.db.prepare("DELETE FROM objects WHERE kind = ? AND name = ?");
    this.setVersion = this.db.prepare("UPDATE store_version SET resource_version = ? WHERE id = 1");
  }

  load(): { objects: { kind: KindName; object: StoredObject }[]; resourceVersion: number } {
    const rows = this.db.prepare("SELECT kind, body FROM objects").all() as {
      kind: KindName;
      body: string;
    }[];
    const version = this.db.prepare("SELECT resource_version FROM store_version WHERE id = 1").get() as {
      resource_version: number;
    };
    return {
      objects: rows.map((row) => ({ kind: row.kind, object: JSON.parse(row.body) as StoredObject })),
      resourceVersion: version.resource_version,
    };
  }

  put(kind: KindName, object: StoredObject, resourceVersion: number, scrub: boolean): void {
    this.write(scrub, () => {
      this.upsert.run(kind, object.metadata.name, JSON.stringify(object));
      this.setVersion.run(resourceVersion);
    });
  }

  remove(
    objects: readonly { kind: KindName; name: string }[],
    resourceVersion: number,
    scrub: boolean,
  ): void {
    this.write(scrub, () => {
      for (const { kind, name } of objects) this.deleteRow.run(kind, name);
      this.setVersion.run(resourceVersion);
    });
  }

  /** Resolves once every write made so far is committed; rejects if that commit failed. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.batch?.committed.promise ?? Promise.resolve();
  }

  /** Commits what is pending, then closes the database. */
  close(): void {
    this.commit();
    if (this.db.isOpen) this.db.close();
  }

  /**
   * Runs one write's statements inside the open transaction (opening one if none is), in a savepoint: a
   * write that fails is undone alone and throws, and the store then leaves memory as it was.
   */
  private write(scrub: boolean, work: () => void): void {
    if (this.failure)
      throw new Error(`the data directory is not writable since a commit failed: ${this.failure.message}`);
    const batch = this.openBatch();
    this.db.exec("SAVEPOINT write");
    try {
      work();
      this.db.exec("RELEASE write");
    } catch (error) {
      this.undo(error);
      throw error;
    }
    batch.scrub ||= scrub;
  }

  private openBatch(): Batch {
    if (this.batch) return this.batch;
    this.db.exec("BEGIN IMMEDIATE");
    const committed = deferred();
    // Nobody may be waiting for this commit; its failure is reported through onCommitFailure.
    committed.promise.catch(() => {});
    const batch: Batch = { committed, scrub: false, timer: setImmediate(() => this.commit()) };
    this.batch = batch;
    return batch;
  }

  private undo(error: unknown): void {
    try {
      this.db.exec("ROLLBACK TO write");
      this.db.exec("RELEASE write");
    } catch {
      // SQLite rolled the whole transaction back (an I/O error, a full disk): the batch is lost.
    }
    if (!this.db.isTransaction) this.fail(error);
  }

  /** Commits the open transaction, if any, and tells everyone waiting. */
  private commit(): void {
    const batch = this.batch;
    if (batch === undefined) return;
    clearImmediate(batch.timer);
    try {
      this.db.exec("COMMIT");
    } catch (error) {
      this.fail(error);
      return;
    }
    this.batch = undefined;
    this.afterCommit(batch.scrub);
    batch.committed.resolve();
  }

  private fail(cause: unknown): void {
    if (this.failure) return;
    const error = cause instanceof Error ? cause : new Error(String(cause));
    this.failure = error;
    const batch = this.batch;
    this.batch = undefined;
    if (batch) clearImmediate(batch.timer);
    try {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
    } catch {
      // Nothing more can be undone; the failure is reported below.
    }
    batch?.committed.reject(error);
    this.onCommitFailure(error);
  }

  /**
   * The commit is durable already; the checkpoint only takes old page images out of the WAL, so a failed
   * one does not fail the write: it is tried again after the next commit.
   */
  private afterCommit(scrub: boolean): void {
    if (!scrub && !this.scrubPending) return;
    try {
      this.checkpoint();
      this.scrubPending = false;
    } catch {
      this.scrubPending = true;
    }
  }

  /** Copies the WAL into the database file and truncates it to zero bytes. */
  private checkpoint(): void {
    const result = this.db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number } | undefined;
    if (result?.busy) throw new Error("the WAL checkpoint could not complete");
  }

  private scrubOnOpen(): void {
    const { user_version: version } = this.db.prepare("PRAGMA user_version").get() as {
      user_version: number;
    };
    if (version < SCRUBBED_VERSION) {
      this.db.exec("VACUUM");
      this.db.exec(`PRAGMA user_version = ${SCRUBBED_VERSION}`);
    }
    this.checkpoint();
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface Batch {
  committed: Deferred;
  /** Some write in the batch took a secret out of the store: scrub the WAL after the commit. */
  scrub: boolean;
  timer: NodeJS.Immediate;
}

const SQLITE_BUSY = 5;

function isBusy(error: unknown): boolean {
  return (error as { errcode?: unknown } | null)?.errcode === SQLITE_BUSY;
}
