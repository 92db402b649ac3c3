import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePki, signClientCert, signServingCert } from "../../kube/pki";
import type { RawClient } from "../../sdk/client/raw";
import { apiErrorFromResponse } from "../../sdk/errors";
import { SECRET_ANNOTATION } from "../../sdk/schema";
import { type AdmissionServer, startAdmissionServer, WEBHOOK_CLIENT_USER } from "../../webhook/server";
import { proxyReview } from "../helpers/webhook-process";

/**
 * Who the webhook answers, and how many at once, over HTTPS with certificates from the environment's PKI
 * code (kube/pki.ts): only a client certificate the CA signed for kube-apiserver's webhook user reaches
 * `/admit` (anyone else: 401, before the body is read), the probes need none, and a review past the
 * byte budget is 429 with a Status asking for a retry. The cluster client here holds its GETs until
 * the test lets them go, so reviews stay in flight.
 */

let release: () => void = () => {};
let held = new Promise<void>((resolve) => {
  release = resolve;
});
const calls: string[] = [];
const client: RawClient = {
  call: async () => {
    throw new Error("unexpected");
  },
  // As the webhook's client answers a read of what is not stored.
  ok: async (method, url) => {
    calls.push(`${method} ${url}`);
    await held;
    throw apiErrorFromResponse(404, { kind: "Status", reason: "NotFound", message: "not found", code: 404 });
  },
  apply: async () => {
    throw new Error("unexpected");
  },
  close: async () => {},
};

const update = (uid: string) =>
  proxyReview({
    uid,
    operation: "UPDATE",
    object: { apiVersion: "core.example.dev/v1alpha2", kind: "Proxy", metadata: { name: "p" }, spec: {} },
    // Names another object's Secret: the webhook asks the cluster for the stored object first.
    oldObject: {
      apiVersion: "core.example.dev/v1alpha2",
      kind: "Proxy",
      metadata: { name: "p", uid: "u", annotations: { [SECRET_ANNOTATION]: "proxies.victim-abcde" } },
      spec: {},
    },
  });

describe("the webhook's callers", () => {
  let dir: string;
  let server: AdmissionServer;
  let ca: string;
  const agents: Agent[] = [];
  const agent = async (files?: { certFile: string; keyFile: string }) => {
    const connect = files
      ? { ca, cert: await readFile(files.certFile, "utf8"), key: await readFile(files.keyFile, "utf8") }
      : { ca };
    const made = new Agent({ connect });
    agents.push(made);
    return made;
  };
  const admit = async (dispatcher: Agent, body = "{}") => {
    const answer = await request(`${server.url}/admit`, {
      method: "POST",
      dispatcher,
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: answer.statusCode, headers: answer.headers, body: (await answer.body.json()) as never };
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "webhook-callers-"));
    const pki = await makePki(dir);
    ca = pki.caCert;
    const serving = await signServingCert(dir, "exampledev-admission");
    server = await startAdmissionServer({
      client,
      cert: await readFile(serving.certFile, "utf8"),
      key: await readFile(serving.keyFile, "utf8"),
      sweep: { intervalMs: 3_600_000, graceMs: 60_000 },
      drainProxies: false,
      clientAuth: { ca, names: [WEBHOOK_CLIENT_USER] },
      reviewBytesInFlight: 1, // one review at a time, whatever its size
    });
  }, 60_000);
  afterAll(async () => {
    release();
    await server?.close();
    for (const made of agents) await made.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a caller without a client certificate with 401, and serves the probes to it", async () => {
    const anonymous = await agent();
    const answer = await admit(anonymous, update("a"));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    const probe = await request(`${server.url}/readyz`, { dispatcher: anonymous });
    expect(probe.statusCode).toBe(200);
    await probe.body.text();
    expect(calls).toEqual([]);
  });

  it("refuses a certificate of the same CA for another user, and one of another CA", async () => {
    expect(
      (await admit(await agent(await signClientCert(dir, "system:kube-controller-manager")))).status,
    ).toBe(401);
    const other = await mkdtemp(path.join(tmpdir(), "webhook-callers-other-"));
    try {
      await makePki(other);
      const foreign = await signClientCert(other, WEBHOOK_CLIENT_USER);
      const answer = await request(`${server.url}/admit`, {
        method: "POST",
        dispatcher: await agent(foreign),
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(answer.statusCode).toBe(401);
      await answer.body.text();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
    expect(calls).toEqual([]);
  });

  it("admits kube-apiserver's certificate, one review at a time: the next is 429 with a retry", async () => {
    const apiserver = await agent(await signClientCert(dir, WEBHOOK_CLIENT_USER));
    // Not a review: 400 from an authenticated caller.
    expect((await admit(apiserver)).status).toBe(400);
    const first = admit(apiserver, update("first"));
    await expect.poll(() => calls.length).toBe(1);
    expect(calls[0]).toBe("GET /apis/core.example.dev/v1alpha2/proxies/p");
    const second = await admit(await agent(await signClientCert(dir, WEBHOOK_CLIENT_USER)), update("second"));
    expect(second.status).toBe(429);
    expect(second.headers["retry-after"]).toBe("1");
    expect(second.body).toMatchObject({ reason: "TooManyRequests", details: { retryAfterSeconds: 1 } });
    release();
    // The oldObject names a Secret the stored object does not (none stored here): refused, nothing read.
    const answered = await first;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      response: { uid: "first", allowed: false, status: { code: 409 } },
    });
    expect(calls).toHaveLength(1);
    held = Promise.resolve();
    // The slot is free again.
    expect((await admit(apiserver, update("third"))).body).toMatchObject({ response: { uid: "third" } });
  });
});
