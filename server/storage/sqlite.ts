import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { ApiObject } from "../../sdk/client/types";
import type { SpaceExceededError } from "../../sdk/errors/server-errors";
import type { KindName } from "../../sdk/schema";
import { isOutOfSpace, outOfSpace } from "./space";
import type { Journal, JournalObserver } from "./types";
import { FileSync } from "./wal-sync";

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
 * How many writes the WAL takes before it is checkpointed into the database file (each write is a few
 * pages; SQLite's own automatic checkpoint comes at 1000 pages).
 */
export const CHECKPOINT_WRITES = 1000;

/**
 * Syncs of the WAL running at once: a commit's sync starts at once unless this many run (libuv's thread
 * pool has four threads; one is left for other file work).
 */
const MAX_SYNCS_RUNNING = 3;

/** While the store is out of space, the first write after this long tries a commit again (a probe). */
export const SPACE_PROBE_MS = 1_000;

export interface JournalOptions {
  /** A commit or sync failed for another reason than space: nothing is written after it (fail-stop). */
  onCommitFailure?: (error: Error) => void;
  /** Writes are refused for lack of space (the error says why), or taken again (undefined). */
  onSpace?: (refused: SpaceExceededError | undefined) => void;
  /** The largest the database may grow, in bytes (`--max-storage`; SQLite's `max_page_count`). */
  maxBytes?: number;
}

/**
 * Journal in `<dir>/store.db` through Node's built-in SQLite, in WAL mode. Group commit: the first write
 * opens a transaction, the writes that arrive before the next turn of the event loop join it (each in a
 * savepoint, so a failing write leaves the others alone), and one commit appends them all to the WAL.
 * The commit itself does not wait for the disk (`synchronous = OFF`): the WAL is then synced
 * (`fdatasync`) off the event loop, in libuv's thread pool, and the batches committed before that sync
 * began are durable when it ends. So the server goes on taking requests, and the next batches form and
 * start their own syncs, while the disk syncs (on this machine a sync took 0.2 ms when idle and about 20 ms
 * while other work used the disk, which the old commit spent blocking the event loop). `durable()`
 * resolves once everything written so far is synced, and the server answers no request before that
 * (`http/durability.ts`): an acknowledged write survives a `kill -9` and a power loss.
 *
 * The database file is written only at checkpoints, which copy the WAL into it; SQLite's automatic ones are
 * off, as they would run with the commit's `synchronous = OFF` and could overwrite WAL content that is not
 * yet safe in the file. The journal checkpoints itself, with `synchronous = FULL` (the WAL synced before
 * the copy, the file synced before the WAL is reused), every `CHECKPOINT_WRITES` writes; the WAL is then
 * written again from its start, over blocks the file already has, which the disk syncs faster than blocks
 * appended (no change of size to sync).
 *
 * A commit that fails for lack of space (the disk full, or `maxBytes` reached: SQLITE_FULL) loses its batch,
 * which SQLite rolls back: the store puts its memory back as it was (`JournalObserver.lost`) before anyone
 * waiting hears, so no answer and no watch shows what was never written. Writes are then refused at once
 * (the journal is out of space, `onSpace`) but for deletes, which make room, and one write every
 * `SPACE_PROBE_MS`, which tries a commit: the first commit that succeeds takes writes again. A write that alone does not fit (its statement fails) is refused
 * alone. Any other failed commit, or a failed fsync, loses writes the store already shows: the journal then
 * refuses every write and reports the failure to `onCommitFailure`, which stops the server (fail-stop). The
 * resourceVersion counter lives in its own row, so deletes never let it go backwards across a restart.
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
  /** Committed batches not yet durable, in commit order, each with its number. */
  private readonly unsynced: { sequence: number; committed: Deferred }[] = [];
  /** How many batches were committed; a sync started now covers them all. */
  private committedCount = 0;
  /** The number of the last batch a running or finished sync covers. */
  private syncedFrom = 0;
  private syncsRunning = 0;
  /** Closed: syncs still running were made redundant by close's own; their descriptor closes after them. */
  private closed = false;
  private readonly walFile: string;
  private readonly wal: FileSync;
  private writesSinceCheckpoint = 0;
  /** Set once a commit failed for another reason than space: nothing is written after it. */
  private failure: Error | undefined;
  /** Out of space: writes are refused with `error` until `retryAt`, when the next one probes. */
  private full: { error: SpaceExceededError; retryAt: number } | undefined;
  private observer: JournalObserver | undefined;
  private readonly onCommitFailure: (error: Error) => void;
  private readonly onSpace: (refused: SpaceExceededError | undefined) => void;

  constructor(
    private readonly dir: string,
    private readonly options: JournalOptions = {},
  ) {
    this.onCommitFailure = options.onCommitFailure ?? (() => {});
    this.onSpace = options.onSpace ?? (() => {});
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "store.db");
    this.walFile = `${file}-wal`;
    this.wal = new FileSync(this.walFile);
    this.db = new DatabaseSync(file);
    try {
      // EXCLUSIVE before WAL: the lock is held for the connection's life (two servers on one data
      // directory would each trust their own in-memory copy), and WAL then needs no shared memory.
      this.db.exec("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
      // secure_delete is per connection; temp_store keeps VACUUM's copy of the data off the disk.
      this.db.exec("PRAGMA secure_delete = ON; PRAGMA temp_store = MEMORY;");
      this.db.exec(SCHEMA);
      this.limitSize();
      this.scrubOnOpen();
      // From here on commits only append to the WAL; the journal syncs it and checkpoints (see above).
      this.db.exec("PRAGMA wal_autocheckpoint = 0; PRAGMA synchronous = OFF;");
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

  load(): { objects: { kind: KindName; object: ApiObject }[]; resourceVersion: number } {
    const rows = this.db.prepare("SELECT kind, body FROM objects").all() as {
      kind: KindName;
      body: string;
    }[];
    const version = this.db.prepare("SELECT resource_version FROM store_version WHERE id = 1").get() as {
      resource_version: number;
    };
    return {
      objects: rows.map((row) => ({ kind: row.kind, object: JSON.parse(row.body) as ApiObject })),
      resourceVersion: version.resource_version,
    };
  }

  put(kind: KindName, object: ApiObject, resourceVersion: number, scrub: boolean): void {
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
    // Tried even while out of space, as etcd takes deletes under its NOSPACE alarm: they make room.
    this.write(
      scrub,
      () => {
        for (const { kind, name } of objects) this.deleteRow.run(kind, name);
        this.setVersion.run(resourceVersion);
      },
      { evenWhenFull: true },
    );
  }

  observe(observer: JournalObserver): void {
    this.observer = observer;
  }

  /** Why writes are refused for lack of space, while they are. */
  spaceExhausted(): SpaceExceededError | undefined {
    return this.full?.error;
  }

  /** Resolves once every write made so far is committed and fsynced; rejects if that failed. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return (this.batch?.committed ?? this.unsynced.at(-1)?.committed)?.promise ?? Promise.resolve();
  }

  /** Commits what is pending, syncs it, then closes the database (whose last checkpoint syncs too). */
  close(): void {
    this.commit();
    if (!this.db.isOpen) return;
    if (this.failure === undefined && this.unsynced.length > 0) {
      try {
        this.wal.syncNow();
        this.settleSynced(this.committedCount);
      } catch (error) {
        this.fail(error);
      }
    }
    this.closed = true;
    // A sync in libuv's thread pool still uses the descriptor: closing it now could let the number be
    // reused under that sync. The last one to end closes it.
    if (this.syncsRunning === 0) this.wal.close();
    this.db.exec("PRAGMA synchronous = FULL");
    this.db.close();
  }

  /**
   * Runs one write's statements inside the open transaction (opening one if none is), in a savepoint: a
   * write that fails is undone alone and throws, and the store then leaves memory as it was.
   */
  private write(scrub: boolean, work: () => void, { evenWhenFull = false } = {}): void {
    if (this.failure)
      throw new Error(`the data directory is not writable since a commit failed: ${this.failure.message}`);
    if (this.full && !evenWhenFull && Date.now() < this.full.retryAt) throw this.full.error;
    const batch = this.openBatch();
    this.db.exec("SAVEPOINT write");
    try {
      work();
      this.db.exec("RELEASE write");
    } catch (error) {
      this.undo(error);
      throw isOutOfSpace(error) ? outOfSpace(this.dir, this.options.maxBytes, error) : error;
    }
    batch.scrub ||= scrub;
    this.writesSinceCheckpoint++;
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
    if (this.db.isTransaction) return;
    if (isOutOfSpace(error)) this.loseBatch(error);
    else this.fail(error);
  }

  /** Commits the open transaction, if any, and tells everyone waiting. */
  private commit(): void {
    const batch = this.batch;
    if (batch === undefined) return;
    clearImmediate(batch.timer);
    try {
      this.db.exec("COMMIT");
    } catch (error) {
      if (isOutOfSpace(error)) this.loseBatch(error);
      else this.fail(error);
      return;
    }
    this.batch = undefined;
    this.observer?.committed();
    if (this.full) {
      this.full = undefined;
      this.onSpace(undefined);
      this.observer?.writable();
    }
    this.afterCommit(batch.scrub);
    this.unsynced.push({ sequence: ++this.committedCount, committed: batch.committed });
    this.sync();
  }

  /**
   * Fsyncs the WAL off the event loop (up to `MAX_SYNCS_RUNNING` at once, so a batch need not wait for a
   * sync that began before its commit to end first). A sync covers every batch committed before it began:
   * when it ends, those are durable, whichever sync covered them first.
   */
  private sync(): void {
    if (this.failure || this.syncsRunning >= MAX_SYNCS_RUNNING) return;
    if (this.syncedFrom === this.committedCount) return;
    const covers = this.committedCount;
    this.syncedFrom = covers;
    this.syncsRunning++;
    this.wal.sync().then(
      () => {
        if (this.endSync()) return;
        this.settleSynced(covers);
        this.sync();
      },
      (error) => {
        if (!this.endSync()) this.fail(error);
      },
    );
  }

  /** One sync ended; true when the journal closed meanwhile (close synced everything itself). */
  private endSync(): boolean {
    this.syncsRunning--;
    if (!this.closed) return false;
    if (this.syncsRunning === 0) this.wal.close();
    return true;
  }

  private settleSynced(covers: number): void {
    while (this.unsynced.length > 0 && (this.unsynced[0]?.sequence ?? Infinity) <= covers) {
      this.unsynced.shift()?.committed.resolve();
    }
  }

  /**
   * The open batch did not fit (SQLite rolled it back): memory goes back as it was, then those waiting for
   * it hear why, and writes are refused until a probe's commit succeeds.
   */
  private loseBatch(cause: unknown): void {
    const batch = this.abandonBatch();
    const error = outOfSpace(this.dir, this.options.maxBytes, cause);
    const first = this.full === undefined;
    this.full = { error, retryAt: Date.now() + SPACE_PROBE_MS };
    this.observer?.lost();
    batch?.committed.reject(error);
    if (first) this.onSpace(error);
  }

  /** Takes the open batch off its timer and rolls its transaction back; its waiters are the caller's to tell. */
  private abandonBatch() {
    const batch = this.batch;
    this.batch = undefined;
    if (batch) clearImmediate(batch.timer);
    try {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
    } catch {
      // Nothing more can be undone: the caller rejects the batch either way.
    }
    return batch;
  }

  /** `maxBytes` as SQLite's page limit (which never goes below the pages the file has). */
  private limitSize(): void {
    const { maxBytes } = this.options;
    if (maxBytes === undefined) return;
    const { page_size: pageSize } = this.db.prepare("PRAGMA page_size").get() as { page_size: number };
    this.db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
  }

  private fail(cause: unknown): void {
    if (this.failure) return;
    const error = cause instanceof Error ? cause : new Error(String(cause));
    this.failure = error;
    const batch = this.abandonBatch();
    // Committed but never synced: a crash could still lose them, so they are failures too.
    for (const { committed } of this.unsynced.splice(0)) committed.reject(error);
    batch?.committed.reject(error);
    this.onCommitFailure(error);
  }

  /**
   * The commit is in the WAL already (made durable by the next sync, or by the checkpoint's own); the
   * checkpoint takes old page images out of the WAL (a scrub) or keeps it short, so a failed one does not
   * fail the write: it is tried again after the next commit.
   */
  private afterCommit(scrub: boolean): void {
    if (scrub || this.scrubPending) {
      try {
        this.checkpoint("TRUNCATE");
        this.scrubPending = false;
      } catch {
        this.scrubPending = true;
      }
    } else if (this.writesSinceCheckpoint >= CHECKPOINT_WRITES) {
      try {
        this.checkpoint("RESTART");
      } catch {
        // The WAL only grows until the next checkpoint succeeds.
      }
    }
  }

  /**
   * Copies the WAL into the database file, with every sync SQLite makes at `synchronous = FULL` (the WAL,
   * and so every batch committed so far, is synced before the copy, the file after it). TRUNCATE then
   * empties the WAL (a scrub), RESTART lets the next commit write it again from its start.
   */
  private checkpoint(mode: "TRUNCATE" | "RESTART"): void {
    this.db.exec("PRAGMA synchronous = FULL");
    try {
      const result = this.db.prepare(`PRAGMA wal_checkpoint(${mode})`).get() as { busy: number } | undefined;
      if (result?.busy) throw new Error("the WAL checkpoint could not complete");
      this.writesSinceCheckpoint = 0;
    } finally {
      this.db.exec("PRAGMA synchronous = OFF");
    }
  }

  /**
   * Without room for it (the WAL copied into the file, an old file rewritten), the store opens read-only:
   * everything is read from the file and its WAL, and writes wait for space like after a failed commit.
   */
  private scrubOnOpen(): void {
    const { user_version: version } = this.db.prepare("PRAGMA user_version").get() as {
      user_version: number;
    };
    try {
      if (version < SCRUBBED_VERSION) {
        this.db.exec("VACUUM");
        this.db.exec(`PRAGMA user_version = ${SCRUBBED_VERSION}`);
      }
      this.checkpoint("TRUNCATE");
    } catch (error) {
      if (!isOutOfSpace(error)) throw error;
      this.scrubPending = true;
      this.full = { error: outOfSpace(this.dir, this.options.maxBytes, error), retryAt: 0 };
    }
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
