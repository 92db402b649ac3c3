import { afterEach } from "vitest";
import { silentLogger } from "../../controller/logger";
import { ServiceSync } from "../../controller/sync";
import type { ObjectStore } from "../../server/storage";
import { recordingStore, storeCluster } from "./fixtures";

type SyncOptions = ConstructorParameters<typeof ServiceSync>[0];

/**
 * One ServiceSync at a time against a seeded in-memory store that records its writes: `setUp(gateways)`
 * opens one (with more of the sync's options when given); the stores close after each test.
 */
export function syncSetUp() {
  let stores: ObjectStore[] = [];
  afterEach(() => {
    for (const store of stores) store.close();
    stores = [];
  });
  return (gateways: readonly string[] = ["default"], more: Partial<SyncOptions> = {}) => {
    const recording = recordingStore();
    stores.push(recording.store);
    const sync = new ServiceSync({
      cluster: storeCluster(recording.store),
      gateways,
      log: silentLogger,
      ...more,
    });
    return { ...recording, sync };
  };
}
