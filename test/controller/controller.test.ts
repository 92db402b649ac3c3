// startController on an in-memory store: the queue, the event routing and the lifecycle, without HTTP.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Controller, startController } from "../../controller";
import { ServiceSync } from "../../controller/sync";
import type { ObjectStore } from "../../server/storage";
import {
  condition,
  createService,
  DIGEST_B,
  ociService,
  REPO,
  recordingStore,
  revisionNames,
  status,
  storeCluster,
  updateService,
  withSpec,
  writeStatus,
} from "./fixtures";
import { startUnavailableRegistry } from "./unavailable-registry";

let running: { controller: Controller; store: ObjectStore }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const { controller, store } of running) {
    await controller.stop();
    store.close();
  }
  running = [];
});

function start(seed: (store: ObjectStore) => void = () => {}) {
  const recording = recordingStore();
  seed(recording.store);
  const controller = startController({ cluster: storeCluster(recording.store) });
  running.push({ controller, store: recording.store });
  return { ...recording, controller };
}

describe("startController", () => {
  it("syncs every stored Service when it starts", async () => {
    const { store, controller } = start((store) => {
      createService(store, "a", ociService());
      createService(store, "b", ociService({ oci: { repo: REPO, digest: DIGEST_B } }));
    });
    await controller.idle();
    expect(condition(store, "a", "Accepted")?.reason).toBe("Minted");
    expect(condition(store, "b", "Accepted")?.reason).toBe("Minted");
  });

  it("syncs a Service on each write, writing its status once per change", async () => {
    const { store, controller, take } = start();
    createService(store, "web", ociService());
    await controller.idle();
    const [first] = revisionNames(store);
    expect(take()).toEqual(["ADDED Service/web", `ADDED ServiceRevision/${first}`, "MODIFIED Service/web"]);

    updateService(store, "web", withSpec(ociService({ oci: { repo: REPO, digest: DIGEST_B } })));
    await controller.idle();
    const second = revisionNames(store).find((name) => name !== first);
    expect(take()).toEqual([
      "MODIFIED Service/web",
      `ADDED ServiceRevision/${second}`,
      "MODIFIED Service/web",
    ]);
  });

  it("settles after its own writes: they queue one more sync, which writes nothing", async () => {
    const syncs = vi.spyOn(ServiceSync.prototype, "syncService");
    const { store, controller, take } = start();
    createService(store, "web", ociService());
    await controller.idle();
    const [revision] = revisionNames(store);
    expect(take()).toEqual([
      "ADDED Service/web",
      `ADDED ServiceRevision/${revision}`,
      "MODIFIED Service/web",
    ]);
    // The user's create, then the revision and status writes (queued together while the first ran).
    expect(syncs).toHaveBeenCalledTimes(2);
    const version = store.resourceVersion();

    // A status-only event (as its own status write makes) syncs once more and changes nothing.
    const stored = store.get("Service", "web");
    writeStatus(store, "web", { ...stored?.status });
    await controller.idle();
    expect(syncs).toHaveBeenCalledTimes(3);
    expect(take()).toEqual(["MODIFIED Service/web"]);
    expect(store.resourceVersion()).toBe(String(Number(version) + 1));
    expect(store.get("Service", "web")?.status).toEqual(stored?.status);
  });

  it("mints the latest revision again when someone deletes it", async () => {
    const { store, controller, take } = start();
    createService(store, "web", ociService());
    await controller.idle();
    const latest = status(store, "web")?.latestRevision ?? "";
    take();

    store.delete("ServiceRevision", latest);
    await controller.idle();

    expect(take()).toEqual([`DELETED ServiceRevision/${latest}`, `ADDED ServiceRevision/${latest}`]);
  });

  it("waits for the backoff before asking a failing registry again, whatever its own status write", async () => {
    const registry = await startUnavailableRegistry();
    try {
      const store = recordingStore().store;
      let requestsWhenReported: number | undefined;
      // The failure, not the wait before it (a status that says the registry has not answered yet).
      store.subscribe((event) => {
        const conditions = (event.object.status?.conditions ?? []) as { reason?: string }[];
        if (event.kind === "Service" && conditions.some((c) => c.reason === "BundleResolutionFailed"))
          requestsWhenReported ??= registry.requests();
      });
      createService(store, "web", ociService({ oci: { repo: registry.repo, tag: "v1" } }));
      const controller = startController({
        cluster: storeCluster(store),
        backoff: { baseDelayMs: 3_600_000 },
      });
      running.push({ controller, store });
      await controller.idle();

      expect(condition(store, "web", "Accepted")?.reason).toBe("BundleResolutionFailed");
      expect(requestsWhenReported).toBeGreaterThan(0);
      expect(registry.requests()).toBe(requestsWhenReported);
    } finally {
      await registry.close();
    }
  });

  it("stops while a tag resolution waits on the registry, minting nothing", async () => {
    let asked: () => void = () => {};
    const registryAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // A registry that never answers.
    const registry = createServer(() => asked());
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = registry.address() as AddressInfo;
      const { store, controller, take } = start((store) =>
        createService(store, "web", ociService({ oci: { repo: `127.0.0.1:${port}/team/app`, tag: "v1" } })),
      );
      take();
      await registryAsked;
      await controller.stop();
      expect(take()).toEqual([]);
      expect(status(store, "web")).toBeUndefined();
    } finally {
      registry.closeAllConnections();
      await new Promise<void>((resolve) => registry.close(() => resolve()));
    }
  });
});
