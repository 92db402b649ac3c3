// One sync at a time against a seeded in-memory store; the writes it makes are the assertions.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { validateSpec } from "../../sdk/schema";
import {
  condition,
  createService,
  DIGEST_A,
  DIGEST_B,
  gitService,
  ociService,
  REPO,
  revisionNames,
  status,
  updateService,
  withSpec,
  writeStatus,
} from "./fixtures";
import { syncSetUp } from "./sync-setup";
import { startUnavailableRegistry } from "./unavailable-registry";

const setUp = syncSetUp();

describe("syncService", () => {
  it("mints a digest-pinned revision for a new Service and reports it as latest and live", async () => {
    const { store, sync, take } = setUp();
    const service = createService(store, "web", ociService());
    take();

    expect(await sync.syncService("web")).toEqual({ retry: false });

    const [revision] = store.list("ServiceRevision");
    expect(take()).toEqual([`ADDED ServiceRevision/${revision?.metadata.name}`, "MODIFIED Service/web"]);
    expect(revision?.metadata.name).toMatch(/^web-[0-9a-f]{10}$/);
    expect(revision?.metadata.labels).toEqual({ "compute.example.dev/service": "web" });
    expect(revision?.metadata.ownerReferences).toEqual([
      {
        apiVersion: "compute.example.dev/v1alpha1",
        kind: "Service",
        name: "web",
        uid: service.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(revision?.spec).toEqual({
      runtime: { compatibilityDate: "2024-09-01", timeout: "30s" },
      backend: { protocol: "http1" },
      bundle: { repo: REPO, digest: DIGEST_A },
    });
    expect(validateSpec("ServiceRevision", revision?.spec)).toEqual([]);
    const name = revision?.metadata.name;
    expect(status(store, "web")).toMatchObject({
      observedGeneration: 1,
      latestRevision: name,
      liveRevision: name,
    });
    expect(
      status(store, "web")?.conditions.map(({ type, status, reason }) => [type, status, reason]),
    ).toEqual([
      ["Accepted", "True", "Minted"],
      ["EgressReady", "True", "Applied"],
      ["LiveRevisionReady", "True", "Live"],
      ["Ready", "True", "Ready"],
      ["Reconciling", "False", "Reconciled"],
      ["Stalled", "False", "Reconciled"],
    ]);
    expect(condition(store, "web", "Accepted")?.message).toBe(`revision ${name} runs ${REPO}@${DIGEST_A}`);
  });

  it("writes nothing when synced again", async () => {
    const { store, sync, take } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    take();
    await sync.syncService("web");
    expect(take()).toEqual([]);
  });

  it("leaves an unchanged Service as stored: the store's resourceVersion does not move", async () => {
    const { store, sync } = setUp();
    createService(store, "web", ociService({ liveRevision: "web-gone" }));
    await sync.syncService("web");
    const stored = store.get("Service", "web");
    const version = store.resourceVersion();

    for (let i = 0; i < 3; i++) expect(await sync.syncService("web")).toEqual({ retry: false });

    expect(store.resourceVersion()).toBe(version);
    expect(store.get("Service", "web")).toEqual(stored);
  });

  it("keeps a condition's lastTransitionTime while its status stays, and moves it when the status changes", async () => {
    const { store, sync, take } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    const [first] = revisionNames(store);
    // Transition times from long ago, so that a new one shows.
    const LONG_AGO = "2020-01-01T00:00:00Z";
    const stored = status(store, "web");
    writeStatus(store, "web", {
      ...stored,
      conditions: stored?.conditions.map((entry) => ({ ...entry, lastTransitionTime: LONG_AGO })),
    });
    take();
    await sync.syncService("web");
    expect(take()).toEqual([]);

    // EgressReady goes from True to False; LiveRevisionReady stays True, with another message.
    updateService(
      store,
      "web",
      withSpec(
        ociService({
          liveRevision: first,
          template: { spec: { runtime: { compatibilityDate: "2024-09-01" }, egress: { disabled: true } } },
        }),
      ),
    );
    await sync.syncService("web");

    expect(condition(store, "web", "EgressReady")).toMatchObject({ status: "False", observedGeneration: 2 });
    expect(condition(store, "web", "EgressReady")?.lastTransitionTime).not.toBe(LONG_AGO);
    expect(condition(store, "web", "LiveRevisionReady")).toMatchObject({
      status: "True",
      message: `revision ${first} is live: pinned by spec.liveRevision`,
      lastTransitionTime: LONG_AGO,
      observedGeneration: 2,
    });
  });

  it("mints again when the template changes, and keeps the earlier revision", async () => {
    const { store, sync, take } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    const [first] = revisionNames(store);
    updateService(
      store,
      "web",
      withSpec(
        ociService({
          template: {
            spec: { runtime: { compatibilityDate: "2024-09-01" }, env: [{ name: "A", value: "1" }] },
          },
        }),
      ),
    );
    take();

    await sync.syncService("web");

    const second = revisionNames(store).find((name) => name !== first);
    expect(take()).toEqual([`ADDED ServiceRevision/${second}`, "MODIFIED Service/web"]);
    expect(status(store, "web")).toMatchObject({
      observedGeneration: 2,
      latestRevision: second,
      liveRevision: second,
    });
    expect(store.get("ServiceRevision", second ?? "")?.spec.env).toEqual([{ name: "A", value: "1" }]);
  });

  it("mints again when the digest changes", async () => {
    const { store, sync } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    updateService(store, "web", withSpec(ociService({ oci: { repo: REPO, digest: DIGEST_B } })));
    await sync.syncService("web");

    const latest = status(store, "web")?.latestRevision ?? "";
    expect(revisionNames(store)).toHaveLength(2);
    expect(store.get("ServiceRevision", latest)?.spec.bundle).toEqual({ repo: REPO, digest: DIGEST_B });
  });

  it("mints again when the template's labels change, and puts them on the revision", async () => {
    const { store, sync } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    const labelled = ociService();
    labelled.template = {
      ...labelled.template,
      metadata: { labels: { tier: "edge" }, annotations: { note: "n" } },
    };
    updateService(store, "web", withSpec(labelled));
    await sync.syncService("web");

    const latest = store.get("ServiceRevision", status(store, "web")?.latestRevision ?? "");
    expect(revisionNames(store)).toHaveLength(2);
    expect(latest?.metadata.labels).toEqual({ tier: "edge", "compute.example.dev/service": "web" });
    expect(latest?.metadata.annotations).toEqual({ note: "n" });
  });

  it("neither mints nor writes status on a metadata-only change", async () => {
    const { store, sync, take } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    updateService(store, "web", (object) => ({
      ...object,
      metadata: { ...object.metadata, labels: { team: "a" } },
    }));
    take();
    await sync.syncService("web");
    expect(take()).toEqual([]);
  });

  it("reuses the equal revision when the template goes back to an earlier one", async () => {
    const { store, sync, take } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    const [first] = revisionNames(store);
    updateService(store, "web", withSpec(ociService({ oci: { repo: REPO, digest: DIGEST_B } })));
    await sync.syncService("web");
    updateService(store, "web", withSpec(ociService()));
    take();

    await sync.syncService("web");

    expect(take()).toEqual(["MODIFIED Service/web"]);
    expect(status(store, "web")).toMatchObject({
      observedGeneration: 3,
      latestRevision: first,
      liveRevision: first,
    });
  });

  it("copies the registry credentials into the revision's bundle", async () => {
    const { store, sync } = setUp();
    const credentials = { username: "alice", passwordData: "pw-4f1e" };
    createService(store, "web", ociService({ oci: { repo: REPO, digest: DIGEST_A, credentials } }));
    await sync.syncService("web");
    expect(store.list("ServiceRevision")[0]?.spec.bundle).toEqual({
      repo: REPO,
      digest: DIGEST_A,
      credentials,
    });
  });

  it("mints nothing for a git source and says it awaits a build", async () => {
    const { store, sync, take } = setUp();
    createService(store, "web", gitService());
    take();

    expect(await sync.syncService("web")).toEqual({ retry: false });

    expect(take()).toEqual(["MODIFIED Service/web"]);
    expect(status(store, "web")).not.toHaveProperty("latestRevision");
    expect(status(store, "web")).not.toHaveProperty("liveRevision");
    expect(condition(store, "web", "Accepted")).toMatchObject({ status: "False", reason: "AwaitingBuild" });
    expect(condition(store, "web", "LiveRevisionReady")).toMatchObject({
      status: "False",
      reason: "NoRevision",
    });
  });

  it("reports a revision name taken by a revision of no Service, and asks to be retried", async () => {
    const { store, sync } = setUp();
    createService(store, "web", ociService());
    await sync.syncService("web");
    const [name] = revisionNames(store);
    const taken = store.get("ServiceRevision", name ?? "");
    if (!taken) throw new Error("no revision minted");
    store.delete("ServiceRevision", taken.metadata.name);
    store.create("ServiceRevision", { ...taken, metadata: { name: taken.metadata.name } });

    expect(await sync.syncService("web")).toEqual({ retry: true });
    expect(condition(store, "web", "Accepted")).toMatchObject({
      status: "False",
      reason: "RevisionNameTaken",
    });
    expect(status(store, "web")).not.toHaveProperty("latestRevision");
  });

  it("while a retry is pending, reports a registry failure for the Service as it stands without asking again", async () => {
    const registry = await startUnavailableRegistry();
    try {
      const { store, take, sync } = setUp(["default"], { resolve: { retries: 0 } });
      createService(store, "web", ociService({ oci: { repo: registry.repo, tag: "v1" } }));

      expect(await sync.syncService("web")).toEqual({ retry: true });
      expect(condition(store, "web", "Accepted")?.reason).toBe("BundleResolutionFailed");
      const asked = registry.requests();
      expect(asked).toBeGreaterThan(0);
      take();
      const version = store.resourceVersion();

      // The sync its own status write queues, while the backoff runs: same answer, nothing written.
      expect(await sync.syncService("web", { retryPending: true })).toEqual({ retry: true });
      expect(registry.requests()).toBe(asked);
      expect(store.resourceVersion()).toBe(version);

      // The retry itself asks again.
      expect(await sync.syncService("web")).toEqual({ retry: true });
      expect(registry.requests()).toBeGreaterThan(asked);
      expect(take()).toEqual([]);
    } finally {
      await registry.close();
    }
  });

  it("does nothing for a Service that no longer exists", async () => {
    const { store, sync, take } = setUp();
    createService(store, "web", ociService());
    store.delete("Service", "web");
    take();
    expect(await sync.syncService("web")).toEqual({ retry: false });
    expect(take()).toEqual([]);
  });

  it("mints nothing for a Service deleted while its tag was being resolved", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked: () => void = () => {};
    const registryAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // A registry that answers a manifest HEAD only when the test says so.
    const registry = createServer((_request, response) => {
      asked();
      void released.then(() => {
        response.writeHead(200, { "docker-content-digest": DIGEST_A });
        response.end();
      });
    });
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    try {
      const { store, sync, take } = setUp();
      const { port } = registry.address() as AddressInfo;
      createService(store, "web", ociService({ oci: { repo: `127.0.0.1:${port}/team/app`, tag: "v1" } }));
      take();

      const syncing = sync.syncService("web");
      await registryAsked;
      store.delete("Service", "web");
      release();

      expect(await syncing).toEqual({ retry: false });
      expect(take()).toEqual(["DELETED Service/web"]);
    } finally {
      registry.closeAllConnections();
      await new Promise<void>((resolve) => registry.close(() => resolve()));
    }
  });
});
