import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionOf } from "../../cli/connection";
import { type Controller, clusterOf, startController } from "../../controller";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { type Client, createClient, type ServiceRevision } from "../../sdk/client";
import { KINDS } from "../../sdk/schema";
import { ociService } from "../controller/fixtures";

// A Service deleted while the controller mints its revision, then created again under the same name with the
// same template (a stack destroyed and brought up again): the revision is garbage-collected with the first
// Service, and the controller, which reads the collector's deletion before the answer to its own create,
// must not take that answer for a revision that still exists. It did, and the second Service stayed
// `RevisionNameTaken` until the controller restarted (seen in CI as a 50 %-fault e2e run timing out).

let api: KubeApi;
let admin: Client;
let controllerClient: Client;
let controller: Controller | undefined;

beforeAll(async () => {
  api = await startKubeApi();
  admin = createClient({ baseUrl: api.url, token: api.token, ca: api.caCert });
  controllerClient = createClient(connectionOf({ kubeconfig: api.controllerKubeconfig }, {}));
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await Promise.all([admin?.close(), controllerClient?.close()]);
  await api?.close();
});

const service = (name: string) => ({
  apiVersion: KINDS.Service.apiVersion,
  kind: "Service" as const,
  metadata: { name },
  spec: ociService(),
});

describe("a Service deleted while its revision is minted, then created again", () => {
  it("gets its revision: the answer to the first create does not bring back the collected revision", async () => {
    const cluster = clusterOf(controllerClient);
    // The first revision create is answered only once the controller's cache has seen the revision
    // collected: the order a busy controller may read them in.
    const revisions = controllerClient.serviceRevisions;
    const create = revisions.create.bind(revisions);
    let collected: Promise<void> | undefined;
    let first = true;
    revisions.create = async (object, options) => {
      const created = await create(object, options);
      if (first) {
        first = false;
        const name = created.metadata.name;
        collected = new Promise((resolve) =>
          cluster.revisions.addHandlers({ delete: (gone) => gone.metadata.name === name && resolve() }),
        );
        await admin.services.delete("web");
        await collected;
      }
      return created;
    };
    controller = startController({ cluster });
    await controller.synced();

    await admin.services.create(service("web"));
    await expect.poll(() => collected !== undefined, { timeout: 20_000 }).toBe(true);
    await collected;
    await expect.poll(async () => (await admin.services.list()).items.length, { timeout: 20_000 }).toBe(0);

    const again = await admin.services.create(service("web"));
    await expect
      .poll(async () => (await admin.services.get("web")).status, { interval: 100, timeout: 30_000 })
      .toMatchObject({ latestRevision: expect.any(String), liveRevision: expect.any(String) });
    const status = (await admin.services.get("web")).status;
    const revision: ServiceRevision = await admin.serviceRevisions.get(status?.latestRevision ?? "");
    expect(revision.metadata.ownerReferences?.[0]?.uid).toBe(again.metadata.uid);
    expect(status?.conditions?.find((condition) => condition.type === "Accepted")).toMatchObject({
      status: "True",
    });
  });
});
