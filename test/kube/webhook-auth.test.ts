import { readFile } from "node:fs/promises";
import path from "node:path";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMISSION_IDENTITY } from "../../deploy/identities";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { installIdentity } from "../../kube/install";
import { signServingCert } from "../../kube/pki";
import { createRawClient, type RawClient } from "../../sdk/client/raw";
import { KINDS, SECRET_ANNOTATION, SECRETS_NAMESPACE } from "../../sdk/schema";
import { webhookClient } from "../../webhook/client";
import { startAdmissionServer, WEBHOOK_CLIENT_USER } from "../../webhook/server";

/**
 * The webhook of `npm run kube` answers kube-apiserver only: kube-apiserver presents its client certificate
 * (the admission configuration's kubeconfig) and writes go through; anyone else who reaches the webhook gets
 * 401 and mints nothing, so etcd does not grow. The same flood sent to a webhook without client
 * authentication (as it was) is measured beside it; the figures are printed, not asserted. A review from
 * kube-apiserver's own certificate whose oldObject names another object's Secret is refused.
 */

const PROXIES = `/apis/${KINDS.Proxy.apiVersion}/${KINDS.Proxy.plural}`;
const SECRETS = `/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets`;
const KEY = "k".repeat(256 * 1024);
const FLOOD = 100;

function review(name: string, oldObject?: Record<string, unknown>): string {
  const object = {
    apiVersion: KINDS.Proxy.apiVersion,
    kind: "Proxy",
    metadata: { name, uid: "forged-uid" },
    spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: KEY } } } },
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `review-${name}`,
      kind: { group: KINDS.Proxy.group, version: KINDS.Proxy.version, kind: "Proxy" },
      operation: oldObject ? "UPDATE" : "CREATE",
      object,
      ...(oldObject && { oldObject }),
    },
  });
}

describe("the webhook on kube-apiserver answers kube-apiserver only", () => {
  let kube: KubeApi;
  let admin: RawClient;
  const agents: Agent[] = [];

  const etcdMb = async () => {
    const metrics = await (await fetch(`${kube.etcdUrl}/metrics`)).text();
    const size = /^etcd_mvcc_db_total_size_in_bytes (\S+)$/m.exec(metrics)?.[1];
    return Number(size) / 1024 / 1024;
  };
  const secretCount = async () => (await admin.ok<{ items: unknown[] }>("GET", SECRETS)).items.length;
  const flood = async (url: string, dispatcher: Agent, prefix: string) => {
    const statuses: Record<number, number> = {};
    for (let i = 0; i < FLOOD; i++) {
      const answer = await request(`${url}/admit`, {
        method: "POST",
        dispatcher,
        headers: { "content-type": "application/json" },
        body: review(`${prefix}-${i}`),
      });
      await answer.body.text();
      statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
    }
    return statuses;
  };

  beforeAll(async () => {
    kube = await startKubeApi({ drainProxies: false });
    admin = createRawClient({
      baseUrl: kube.url,
      token: kube.token,
      ca: kube.caCert,
      userAgent: "webhook-auth-test",
    });
  }, 600_000);
  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await admin?.close();
    await kube?.close();
  });

  it("lets kube-apiserver's writes through, its certificate being the one the webhook asks for", async () => {
    const created = await admin.call("POST", PROXIES, {
      apiVersion: KINDS.Proxy.apiVersion,
      kind: "Proxy",
      metadata: { name: "through-the-webhook" },
      spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "value" } } } },
    });
    expect(created.status).toBe(201);
    const { metadata } = created.body as { metadata: { annotations?: Record<string, string> } };
    expect(metadata.annotations?.[SECRET_ANNOTATION]).toBeDefined();
  });

  it("refuses 100 reviews from anyone else with 401: no Secret, etcd does not grow (an open webhook's figures beside)", async () => {
    const anonymous = new Agent({ connect: { ca: kube.caCert } });
    agents.push(anonymous);
    const secretsBefore = await secretCount();
    const before = await etcdMb();
    const statuses = await flood(kube.admission.url, anonymous, "flood");
    const after = await etcdMb();
    expect(statuses).toEqual({ 401: FLOOD });
    expect(await secretCount()).toBe(secretsBefore);

    // The same flood to a webhook without client authentication, as the webhook was before.
    const token = await installIdentity(admin, ADMISSION_IDENTITY);
    const serving = await signServingCert(kube.dir, "exampledev-admission-open");
    const open = await startAdmissionServer({
      client: webhookClient({ baseUrl: kube.url, token, ca: kube.caCert }),
      cert: await readFile(serving.certFile, "utf8"),
      key: await readFile(serving.keyFile, "utf8"),
      sweep: { intervalMs: 3_600_000, graceMs: 60_000 },
      drainProxies: false,
    });
    try {
      const openStatuses = await flood(open.url, anonymous, "open");
      const afterOpen = await etcdMb();
      const minted = (await secretCount()) - secretsBefore;
      console.log(
        `etcd under ${FLOOD} unauthenticated reviews with a 256 KiB key: authenticated webhook ` +
          `${before.toFixed(1)} -> ${after.toFixed(1)} MB (${JSON.stringify(statuses)}); open webhook ` +
          `${after.toFixed(1)} -> ${afterOpen.toFixed(1)} MB (${JSON.stringify(openStatuses)}, ${minted} Secrets minted)`,
      );
      expect(minted).toBe(FLOOD);
    } finally {
      await open.close();
    }
    // A mebibyte is etcd's own bookkeeping at most; the open webhook's flood is 25 MiB of Secrets.
    expect(after - before).toBeLessThan(1);
  });

  it("refuses a review of kube-apiserver's own certificate whose oldObject names another object's Secret", async () => {
    const victim = (await admin.ok("GET", `${PROXIES}/through-the-webhook`)) as {
      metadata: Record<string, unknown> & { annotations: Record<string, string> };
    };
    const client = (name: string) =>
      path.join(kube.dir, `client-${WEBHOOK_CLIENT_USER.replace(/[^A-Za-z0-9_.-]/g, "_")}.${name}`);
    const apiserver = new Agent({
      connect: {
        ca: kube.caCert,
        cert: await readFile(client("crt"), "utf8"),
        key: await readFile(client("key"), "utf8"),
      },
    });
    agents.push(apiserver);
    const secretsBefore = await secretCount();
    // The thief's oldObject: its own name, the victim's Secret.
    const forged = {
      apiVersion: KINDS.Proxy.apiVersion,
      kind: "Proxy",
      metadata: {
        name: "thief",
        uid: "thief-uid",
        annotations: { [SECRET_ANNOTATION]: victim.metadata.annotations[SECRET_ANNOTATION] },
      },
      spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "<API_KEY>" } } } },
    };
    const answer = await request(`${kube.admission.url}/admit`, {
      method: "POST",
      dispatcher: apiserver,
      headers: { "content-type": "application/json" },
      body: review("thief", forged),
    });
    expect(answer.statusCode).toBe(200);
    const { response } = (await answer.body.json()) as {
      response: { allowed: boolean; status?: { code: number } };
    };
    expect(response).toMatchObject({ allowed: false, status: { code: 409 } });
    expect(await secretCount()).toBe(secretsBefore);
    // The victim's own update still goes through (its oldObject is the stored object).
    const patched = await admin.call(
      "PATCH",
      `${PROXIES}/through-the-webhook`,
      { metadata: { labels: { touched: "yes" } } },
      "application/merge-patch+json",
    );
    expect(patched.status).toBe(200);
  });
});
