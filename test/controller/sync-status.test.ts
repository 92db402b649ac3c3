// What a sync reports and keeps beyond minting, against a seeded in-memory store: writes it had not seen,
// EgressReady, the live revision and the revision history limit.
import { describe, expect, it } from "vitest";
import type { Cluster } from "../../controller";
import { silentLogger } from "../../controller/logger";
import { ServiceSync } from "../../controller/sync";
import type { ObjectStore } from "../../server/storage";
import {
  condition,
  createService,
  DIGEST_B,
  ociService,
  REPO,
  revisionNames,
  status,
  storeCluster,
  updateService,
  withSpec,
} from "./fixtures";
import { syncSetUp } from "./sync-setup";

const setUp = syncSetUp();

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
