import { type JournalOptions, SqliteJournal } from "./sqlite";
import { Store } from "./store";
import type { ObjectStore } from "./types";

export { timestamp } from "../../sdk/shared/time";
export {
  createdObject,
  type NewIdentity,
  removedObject,
  shorterGrace,
  statusUpdatedObject,
  updatedObject,
} from "./next-object";
export {
  checkDeletePreconditions,
  checkPreconditions,
  type Preconditions,
  preconditionFailed,
  uidOfNoObject,
} from "./preconditions";
export type {
  CommitListener,
  DeleteTarget,
  ObjectMeta,
  ObjectStore,
  OwnerReference,
  ResetListener,
  WatchEvent,
  WatchListener,
} from "./types";

/**
 * `"memory"` for tests; `{ dir }` for the durable store in `<dir>/store.db`, at most `maxBytes` large
 * (`--max-storage`) when given.
 */
export type StorageOption = "memory" | { dir: string; maxBytes?: number };

/**
 * The one store implementation; only where it writes through differs. `journal.onCommitFailure`: a commit
 * of the durable store failed, so writes the store already shows are lost (the server stops; see
 * `startServer`); `journal.onSpace`: writes are refused for lack of space, or taken again.
 */
export function openStore(
  storage: StorageOption,
  onListenerError?: (error: unknown) => void,
  journal: Omit<JournalOptions, "maxBytes"> = {},
): ObjectStore {
  if (storage === "memory") return new Store({ onListenerError });
  const options = { ...journal, ...(storage.maxBytes !== undefined && { maxBytes: storage.maxBytes }) };
  return new Store({ journal: new SqliteJournal(storage.dir, options), onListenerError });
}
