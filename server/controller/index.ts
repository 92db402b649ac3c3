// The Service controller: keeps every Service's revisions and status in line with its spec. Events from
// the store only queue Service names; one worker syncs one name at a time.
import type { ObjectStore } from "../storage/types";
import { serviceKeyOf } from "./events";
import { type ControllerLogger, silentLogger } from "./logger";
import { type BackoffOptions, WorkQueue } from "./queue";
import { DEFAULT_GATEWAY } from "./status";
import { ServiceSync } from "./sync";

export type { ServiceStatus } from "../../sdk/schema/status";
export type { Condition, ConditionStatus } from "./conditions";
export type { ControllerLogger } from "./logger";
export type { BackoffOptions } from "./queue";
export { SERVICE_LABEL } from "./revision";

export interface ControllerOptions {
  store: ObjectStore;
  /** Egress gateway names that exist (`--egress-gateways`). Default `["default"]`. */
  gateways?: readonly string[];
  log?: ControllerLogger;
  /** Per-Service backoff after a failure that may pass (registry down). Default 1 s doubling to 5 min. */
  backoff?: BackoffOptions;
}

export interface Controller {
  /** Resolves once no Service waits for a sync and none is syncing; retries in backoff do not count. */
  idle(): Promise<void>;
  /** Stops watching, drops queued work and pending retries, aborts a tag resolution under way. */
  stop(): Promise<void>;
}

export function startController(options: ControllerOptions): Controller {
  const { store } = options;
  const log = options.log ?? silentLogger;
  const queue = new WorkQueue(options.backoff);
  const stopping = new AbortController();
  const sync = new ServiceSync({
    store,
    gateways: options.gateways ?? [DEFAULT_GATEWAY],
    log,
    resolve: { signal: stopping.signal },
  });

  const unsubscribe = store.subscribe((event) => {
    // The sync's own writes need no sync (it has just converged what they touch), and a status write that
    // reports a registry failure must not bring the next attempt forward past its backoff.
    if (sync.writing) return;
    const key = serviceKeyOf(event);
    if (key !== undefined) queue.add(key);
  });
  // Crash repair: whatever a stop interrupted (a revision minted, status not yet written) converges now.
  for (const service of store.list("Service")) queue.add(service.metadata.name);

  const worker = (async () => {
    for (let name = await queue.get(); name !== undefined; name = await queue.get()) {
      try {
        const { retry } = await sync.syncService(name);
        if (retry) {
          const delayMs = queue.retryLater(name);
          log.info({ service: name, delayMs }, "sync will be retried");
        } else {
          queue.forget(name);
        }
      } catch (error) {
        if (stopping.signal.aborted) break;
        const delayMs = queue.retryLater(name);
        log.error({ service: name, delayMs, error: String(error) }, "sync failed; retrying");
      } finally {
        queue.done(name);
      }
    }
  })();

  return {
    idle: () => queue.idle(),
    async stop() {
      unsubscribe();
      stopping.abort(new Error("the controller is stopping"));
      queue.shutDown();
      await worker;
    },
  };
}
