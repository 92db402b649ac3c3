import { SqliteJournal } from "./sqlite";
import { Store } from "./store";

export { timestamp } from "./store";
import type { ObjectStore } from "./types";

export type { Journal } from "./store";
export type { ObjectMeta, ObjectStore, OwnerReference, StoredObject, WatchEvent, WatchListener } from "./types";

/** `"memory"` for tests; `{ dir }` for the durable store in `<dir>/store.db`. */
export type StorageOption = "memory" | { dir: string };

export function openStore(storage: StorageOption, onListenerError?: (error: unknown) => void): ObjectStore {
  const journal = storage === "memory" ? undefined : new SqliteJournal(storage.dir);
  return new Store({ journal, onListenerError });
}
