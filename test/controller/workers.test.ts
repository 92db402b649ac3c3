// Several workers (--controller-workers): Services are synced side by side, never one Service in two workers
// at once, and a Service written while it is synced is synced once more after, so every Service ends with
// exactly one revision per template it had and a status that names the revision of its current template.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startController } from "../../controller";
import { ServiceSync } from "../../controller/sync";
import type { ObjectStore } from "../../server/storage";
import { createService, ociService, recordingStore, status, storeCluster, updateService } from "./fixtures";

const stores: ObjectStore[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const store of stores.splice(0)) store.close();
});

describe("several workers", () => {
  it("sync different Services at once, one Service never twice at once, and a write meanwhile once more after", async () => {
    const { store } = recordingStore();
    stores.push(store);
    const inFlight = new Set<string>();
    let most = 0;
    const overlaps: string[] = [];
    const syncs = new Map<string, number>();
    const original = ServiceSync.prototype.syncService;
    vi.spyOn(ServiceSync.prototype, "syncService").mockImplementation(async function (
      this: ServiceSync,
      name,
      options,
    ) {
      if (inFlight.has(name)) overlaps.push(name);
      inFlight.add(name);
      most = Math.max(most, inFlight.size);
      syncs.set(name, (syncs.get(name) ?? 0) + 1);
      try {
        // A sync takes a while, as its API round trips do: long enough for others to start beside it.
        await sleep(5);
        return await original.call(this, name, options);
      } finally {
        inFlight.delete(name);
      }
    });
    const controller = startController({ cluster: storeCluster(store), workers: 4 });
    try {
      const names = Array.from({ length: 40 }, (_, index) => `web-${index}`);
      for (const name of names) createService(store, name, ociService());
      // Template changes while the first syncs run: each of these Services must end on its new template.
      await sleep(15);
      const changed = names.filter((_, index) => index % 4 === 0);
      for (const name of changed)
        updateService(store, name, (object) => ({
          ...object,
          spec: { ...object.spec, template: { spec: { runtime: { compatibilityDate: "2025-01-01" } } } },
        }));
      await controller.idle();

      expect(overlaps).toEqual([]);
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(4);
      const revisions = store.list("ServiceRevision");
      for (const name of names) {
        const own = revisions.filter((revision) =>
          revision.metadata.ownerReferences?.some((owner) => owner.name === name),
        );
        const service = store.get("Service", name);
        const current = status(store, name);
        // One revision per template the Service was minted for: at most two, and its status names the
        // revision of the template it has now, for the generation it has now.
        expect(new Set(own.map((revision) => revision.metadata.name)).size).toBe(own.length);
        expect(own.length).toBeLessThanOrEqual(changed.includes(name) ? 2 : 1);
        expect(current?.observedGeneration).toBe(service?.metadata.generation);
        const latest = own.find((revision) => revision.metadata.name === current?.latestRevision);
        const runtime = latest?.spec.runtime as { compatibilityDate?: string } | undefined;
        expect(runtime?.compatibilityDate).toBe(changed.includes(name) ? "2025-01-01" : "2024-09-01");
      }
    } finally {
      await controller.stop();
    }
  });
});
