import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionOf } from "../../cli/connection";
import { type Controller, clusterOf, startController } from "../../controller";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { type Client, createClient } from "../../sdk/client";
import { KINDS, PROXY_DRAIN_FINALIZER, SECRET_ANNOTATION } from "../../sdk/schema";

// The Proxy drain on kube-apiserver, where a custom resource has no grace period of its own: the webhook
// creates each Proxy with the drain finalizer, and the controller, as its own service account (only the
// permissions deploy/ gives it), takes it off once a deleted Proxy has drained, as on the local server.

const GRACE_MS = 700;

let api: KubeApi;
let admin: Client;
let controllerClient: Client;
let controller: Controller | undefined;

const startDrain = () =>
  startController({ cluster: clusterOf(controllerClient), proxyDeletionGraceMs: GRACE_MS });

beforeAll(async () => {
  api = await startKubeApi();
  admin = createClient({ baseUrl: api.url, token: api.token, ca: api.caCert });
  controllerClient = createClient(connectionOf({ kubeconfig: api.controllerKubeconfig }, {}));
  controller = startDrain();
  await controller.idle();
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await Promise.all([admin?.close(), controllerClient?.close()]);
  await api?.close();
});

function proxy(name: string) {
  return {
    apiVersion: KINDS.Proxy.apiVersion,
    kind: "Proxy" as const,
    metadata: { name },
    spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "alpha-logs-key" } } } },
  };
}

/** Polls until the Proxy is gone; how long after `since` that was, in ms. */
async function goneAfter(name: string, since: number): Promise<number> {
  await expect
    .poll(async () => (await admin.proxies.list()).items.some((item) => item.metadata.name === name), {
      interval: 20,
      timeout: 20_000,
    })
    .toBe(false);
  return Date.now() - since;
}

describe("the Proxy drain on kube-apiserver", () => {
  it("the webhook creates a Proxy with the finalizer; deleted, it goes once drained", async () => {
    const created = await admin.proxies.create(proxy("edge"));
    expect(created.metadata.finalizers).toEqual([PROXY_DRAIN_FINALIZER]);
    expect(created.metadata.annotations?.[SECRET_ANNOTATION]).toEqual(expect.any(String));
    const start = Date.now();
    const marked = await admin.proxies.delete("edge");
    expect(marked?.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      deletionGracePeriodSeconds: 0,
      finalizers: [PROXY_DRAIN_FINALIZER],
    });
    const stayed = await goneAfter("edge", start);
    expect(stayed).toBeGreaterThanOrEqual(GRACE_MS - 5);
    console.log(`kube-apiserver: a Proxy drained for ${GRACE_MS} ms went ${stayed} ms after its DELETE`);
  }, 60_000);

  it("with no controller running, a deleted Proxy waits; a controller started later lets it go", async () => {
    await admin.proxies.create(proxy("waiting"));
    await controller?.stop();
    controller = undefined;
    await admin.proxies.delete("waiting");
    await sleep(GRACE_MS * 2);
    const still = await admin.proxies.get("waiting");
    expect(still.metadata.finalizers).toEqual([PROXY_DRAIN_FINALIZER]);
    const restarted = Date.now();
    controller = startDrain();
    // The drain was over while no controller ran: the new one takes the finalizer off at once.
    const took = await goneAfter("waiting", restarted);
    expect(took).toBeLessThan(10_000);
    console.log(
      `kube-apiserver: a Proxy whose drain ended with no controller went ${took} ms after one started`,
    );
  }, 60_000);
});
