// One sync at a time against a seeded in-memory store; the writes it makes are the assertions.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Cluster } from "../../controller";
import { silentLogger } from "../../controller/logger";
import { ServiceSync } from "../../controller/sync";
import { validateSpec } from "../../sdk/schema";
import type { ObjectStore } from "../../server/storage";
import {
  condition,
  createService,
  DIGEST_A,
  DIGEST_B,
  gitService,
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

let stores: ObjectStore[] = [];
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
});

function setUp(gateways: readonly string[] = ["default"]) {
  const recording = recordingStore();
  stores.push(recording.store);
  const sync = new ServiceSync({ cluster: storeCluster(recording.store), gateways, log: silentLogger });
  return { ...recording, sync };
}

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
    let requests = 0;
    const registry = createServer((_request, response) => {
      requests++;
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    try {
      const recording = recordingStore();
      stores.push(recording.store);
      const { store, take } = recording;
      const sync = new ServiceSync({
        cluster: storeCluster(store),
        gateways: ["default"],
        log: silentLogger,
        resolve: { retries: 0 },
      });
      const { port } = registry.address() as AddressInfo;
      createService(store, "web", ociService({ oci: { repo: `127.0.0.1:${port}/team/app`, tag: "v1" } }));

      expect(await sync.syncService("web")).toEqual({ retry: true });
      expect(condition(store, "web", "Accepted")?.reason).toBe("BundleResolutionFailed");
      const asked = requests;
      expect(asked).toBeGreaterThan(0);
      take();
      const version = store.resourceVersion();

      // The sync its own status write queues, while the backoff runs: same answer, nothing written.
      expect(await sync.syncService("web", { retryPending: true })).toEqual({ retry: true });
      expect(requests).toBe(asked);
      expect(store.resourceVersion()).toBe(version);

      // The retry itself asks again.
      expect(await sync.syncService("web")).toEqual({ retry: true });
      expect(requests).toBeGreaterThan(asked);
      expect(take()).toEqual([]);
    } finally {
      registry.closeAllConnections();
      await new Promise<void>((resolve) => registry.close(() => resolve()));
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

// The API's refusals as the store throws them (the classes the client decodes), met between the sync's read
// and its write: told apart by class, only the one that no later event of this Service fixes is retried.
describe("syncService meeting a write it has not seen", () => {
  function racingSync(store: ObjectStore, change: (cluster: Cluster) => void) {
    const cluster = storeCluster(store);
    change(cluster);
    return new ServiceSync({ cluster, gateways: ["default"], log: silentLogger });
  }

  it("leaves a status write that met a newer Service to that version's sync (Conflict: no retry)", async () => {
    const { store } = setUp();
    createService(store, "web", ociService());
    const sync = racingSync(store, ({ services }) => {
      const replaceStatus = services.replaceStatus;
      services.replaceStatus = (object) => {
        updateService(store, "web", (current) => ({
          ...current,
          metadata: { ...current.metadata, labels: { team: "edge" } },
        }));
        return replaceStatus(object);
      };
    });
    expect(await sync.syncService("web")).toEqual({ retry: false });
    expect(store.get("Service", "web")?.status).toBeUndefined();
  });

  it("retries a revision whose name was taken meanwhile (AlreadyExists, a Conflict too: retry)", async () => {
    const { store } = setUp();
    createService(store, "web", ociService());
    const sync = racingSync(store, ({ revisions }) => {
      const create = revisions.create;
      revisions.create = (object) => {
        store.create("ServiceRevision", { ...object, metadata: { name: object.metadata.name } });
        return create(object);
      };
    });
    expect(await sync.syncService("web")).toEqual({ retry: true });
  });
});

describe("EgressReady", () => {
  async function egressOf(
    spec: ReturnType<typeof ociService>,
    gateways: readonly string[] = ["default", "edge"],
  ) {
    const { store, sync } = setUp(gateways);
    createService(store, "web", spec);
    await sync.syncService("web");
    return condition(store, "web", "EgressReady");
  }

  const withEgress = (egress: { disabled?: boolean; gatewayRef?: string }) =>
    ociService({ template: { spec: { runtime: { compatibilityDate: "2024-09-01" }, egress } } });

  it("is True/Applied through the default gateway when no gatewayRef is set", async () => {
    expect(await egressOf(ociService())).toMatchObject({ status: "True", reason: "Applied" });
  });

  it("is True/Applied for a gatewayRef the server knows", async () => {
    const egress = await egressOf(withEgress({ gatewayRef: "edge" }));
    expect(egress).toMatchObject({ status: "True", reason: "Applied" });
    expect(egress?.message).toContain('"edge"');
  });

  it("is False/GatewayNotFound for a gatewayRef the server does not know, naming the known ones", async () => {
    const egress = await egressOf(withEgress({ gatewayRef: "nowhere" }));
    expect(egress).toMatchObject({ status: "False", reason: "GatewayNotFound" });
    expect(egress?.message).toContain('gatewayRef names egress gateway "nowhere", which does not exist');
    expect(egress?.message).toContain("default, edge");
  });

  it("is False/GatewayNotFound without a gatewayRef when the server has no default gateway", async () => {
    expect(await egressOf(ociService(), ["edge"])).toMatchObject({
      status: "False",
      reason: "GatewayNotFound",
    });
  });

  it("is False/Disabled when egress is disabled", async () => {
    expect(await egressOf(withEgress({ disabled: true }))).toMatchObject({
      status: "False",
      reason: "Disabled",
    });
  });
});

describe("liveRevision", () => {
  async function twoRevisions() {
    const context = setUp();
    const { store, sync } = context;
    createService(store, "web", ociService());
    await sync.syncService("web");
    const first = status(store, "web")?.latestRevision ?? "";
    updateService(store, "web", withSpec(ociService({ oci: { repo: REPO, digest: DIGEST_B } })));
    await sync.syncService("web");
    const second = status(store, "web")?.latestRevision ?? "";
    return { ...context, first, second };
  }

  it("follows a pin to an earlier revision while the latest stays the latest, and the latest after unpinning", async () => {
    const { store, sync, first, second } = await twoRevisions();
    updateService(
      store,
      "web",
      withSpec(ociService({ oci: { repo: REPO, digest: DIGEST_B }, liveRevision: first })),
    );
    await sync.syncService("web");
    expect(status(store, "web")).toMatchObject({ latestRevision: second, liveRevision: first });
    expect(condition(store, "web", "LiveRevisionReady")).toMatchObject({ status: "True", reason: "Live" });

    updateService(store, "web", withSpec(ociService({ oci: { repo: REPO, digest: DIGEST_B } })));
    await sync.syncService("web");
    expect(status(store, "web")).toMatchObject({ latestRevision: second, liveRevision: second });
  });

  it("reports a pin to a revision that does not exist as RevisionNotFound", async () => {
    const { store, sync, second } = await twoRevisions();
    updateService(
      store,
      "web",
      withSpec(ociService({ oci: { repo: REPO, digest: DIGEST_B }, liveRevision: "web-gone" })),
    );
    await sync.syncService("web");

    expect(status(store, "web")).toMatchObject({ latestRevision: second, liveRevision: "web-gone" });
    const live = condition(store, "web", "LiveRevisionReady");
    expect(live).toMatchObject({ status: "False", reason: "RevisionNotFound" });
    expect(live?.message).toBe(
      `spec.liveRevision names revision "web-gone", which does not exist; pin a revision of this Service (the latest is ${second}) or clear spec.liveRevision to follow the latest`,
    );
  });

  it("reports a pin to another Service's revision as RevisionNotOwned", async () => {
    const { store, sync } = setUp();
    createService(store, "api", ociService());
    await sync.syncService("api");
    const foreign = status(store, "api")?.latestRevision ?? "";
    createService(store, "web", ociService({ liveRevision: foreign }));
    await sync.syncService("web");

    const live = condition(store, "web", "LiveRevisionReady");
    expect(live).toMatchObject({ status: "False", reason: "RevisionNotOwned" });
    expect(live?.message).toContain('belongs to Service "api"');
  });
});

describe("revisionHistoryLimit", () => {
  const digest = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;

  it("deletes the oldest revisions beyond the limit, never the pinned one nor the latest", async () => {
    const { store, sync, take } = setUp();
    const minted: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const liveRevision = minted[0];
      const spec = ociService({
        oci: { repo: REPO, digest: digest(n) },
        revisionHistoryLimit: 2,
        liveRevision,
      });
      if (n === 1) createService(store, "web", spec);
      else updateService(store, "web", withSpec(spec));
      take();
      await sync.syncService("web");
      minted.push(status(store, "web")?.latestRevision ?? "");
    }
    const [first, , third, fourth] = minted;

    expect(take()).toEqual([
      `ADDED ServiceRevision/${fourth}`,
      `DELETED ServiceRevision/${third}`,
      "MODIFIED Service/web",
    ]);
    expect(revisionNames(store).sort()).toEqual([first, fourth].sort());
    expect(status(store, "web")).toMatchObject({ latestRevision: fourth, liveRevision: first });
  });
});
