import { SqliteJournal } from "./sqlite";
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
  WatchEvent,
  WatchListener,
} from "./types";

/** `"memory"` for tests; `{ dir }` for the durable store in `<dir>/store.db`. */
export type StorageOption = "memory" | { dir: string };

/**
 * The one store implementation; only where it writes through differs. `onCommitFailure`: a commit of the
 * durable store failed, so writes the store already shows are lost (the server stops; see `startServer`).
 */
export function openStore(
  storage: StorageOption,
  onListenerError?: (error: unknown) => void,
  onCommitFailure?: (error: Error) => void,
): ObjectStore {
  const journal = storage === "memory" ? undefined : new SqliteJournal(storage.dir, onCommitFailure);
  return new Store({ journal, onListenerError });
}
