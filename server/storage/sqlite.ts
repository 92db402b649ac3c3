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

/**
 * Journal in `<dir>/store.db` through Node's built-in SQLite. Each write is one transaction committed
 * with WAL and `synchronous=FULL`, so it is on disk before the HTTP answer goes out and survives a
 * `kill -9`. The resourceVersion counter lives in its own row, so deletes never let it go backwards
 * across a restart.
 */
export class SqliteJournal implements Journal {
  private readonly db: DatabaseSync;
  private readonly upsert: StatementSync;
  private readonly deleteRow: StatementSync;
  private readonly setVersion: StatementSync;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "store.db");
    this.db = new DatabaseSync(file);
    try {
      // EXCLUSIVE before WAL: the lock is held for the connection's life (two servers on one data
      // directory would each trust their own in-memory copy), and WAL then needs no shared memory.
      this.db.exec("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
      this.db.exec(SCHEMA);
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

  put(kind: KindName, object: StoredObject, resourceVersion: number): void {
    this.transaction(() => {
      this.upsert.run(kind, object.metadata.name, JSON.stringify(object));
      this.setVersion.run(resourceVersion);
    });
  }

  remove(kind: KindName, name: string, resourceVersion: number): void {
    this.transaction(() => {
      this.deleteRow.run(kind, name);
      this.setVersion.run(resourceVersion);
    });
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private transaction(work: () => void): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      work();
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }
}

const SQLITE_BUSY = 5;

function isBusy(error: unknown): boolean {
  return (error as { errcode?: unknown } | null)?.errcode === SQLITE_BUSY;
}
