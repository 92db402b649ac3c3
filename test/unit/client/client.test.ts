// What the client sends for each operation and how it reads the answers, against a recording loopback
// server. The API's semantics are tested against the real server in test/api/client.test.ts.

import { afterEach, describe, expect, it } from "vitest";
import {
  type Client,
  type ClientOptions,
  ConnectionError,
  createClient,
  type Service,
  type ServiceInput,
} from "../../../sdk/client";
import { selfSignedCertificate } from "../../helpers/certificates";
import { json, type Peer, type PeerHandler, type RecordedRequest, startPeer } from "./peer";

const SERVICES = "/apis/compute.example.dev/v1alpha1/services";

const api: ServiceInput = {
  metadata: { name: "api", labels: { team: "edge" } },
  spec: {
    source: { oci: { repo: "registry.example.dev/team/app", tag: "v1" } },
    template: { spec: { runtime: { compatibilityDate: "2026-01-01" } } },
  },
};

const storedApi = (generation = 1): Service =>
  ({
    apiVersion: "compute.example.dev/v1alpha1",
    kind: "Service",
    metadata: { name: "api", uid: "u-1", resourceVersion: String(generation), generation },
    spec: api.spec,
    status: { observedGeneration: generation },
  }) as Service;

const opened: { peers: Peer[]; clients: Client[] } = { peers: [], clients: [] };

afterEach(async () => {
  await Promise.all(opened.clients.splice(0).map((client) => client.close()));
  await Promise.all(opened.peers.splice(0).map((peer) => peer.close()));
});

/** A recording server answering every request with `handler`, and a client for it. */
async function setup(handler: PeerHandler, options: Partial<ClientOptions> & { path?: string } = {}) {
  const peer = await startPeer(handler);
  opened.peers.push(peer);
  const client = createClient({ baseUrl: peer.baseUrl + (options.path ?? ""), maxRetries: 0, ...options });
  opened.clients.push(client);
  return { peer, client };
}

const line = (request: RecordedRequest | undefined) => `${request?.method} ${request?.url}`;

describe("createClient", () => {
  it.each([
    [
      "https://user:s3cret-pass@api.example.dev",
      "baseUrl must not contain credentials: pass the API token as `token`",
    ],
    ["ftp://api.example.dev", "baseUrl must use http or https, not ftp"],
    [
      "https://api.example.dev/?x=1",
      "baseUrl must not have a query or fragment: give the server's address only",
    ],
    ["api.example.dev", "baseUrl is not a URL: give one like https://api.example.dev"],
  ])("refuses the base URL %s, saying how to fix it", (baseUrl, message) => {
    expect(() => createClient({ baseUrl })).toThrow(message);
  });

  it("keeps the base URL's path prefix", async () => {
    const { peer, client } = await setup((_request, response) => json(response, 200, storedApi()), {
      path: "/gateway/",
    });
    await client.services.get("api");
    expect(line(peer.requests[0])).toBe(`GET /gateway${SERVICES}/api`);
  });

  it("trusts the server certificate given as ca, and refuses it without", async () => {
    const tls = await selfSignedCertificate();
    const peer = await startPeer((_request, response) => json(response, 200, storedApi()), { tls });
    opened.peers.push(peer);
    const trusting = createClient({ baseUrl: peer.baseUrl, ca: tls.cert });
    const distrusting = createClient({ baseUrl: peer.baseUrl, maxRetries: 3 });
    opened.clients.push(trusting, distrusting);

    await expect(trusting.services.get("api")).resolves.toMatchObject({ metadata: { name: "api" } });
    const error = await distrusting.services.get("api").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    // A certificate another attempt cannot fix is not retried.
    expect(error).toMatchObject({ code: "DEPTH_ZERO_SELF_SIGNED_CERT", attempts: 1 });
  });
});

describe("the seven operations", () => {
  it("create POSTs the object with apiVersion, kind and fieldValidation", async () => {
    const { peer, client } = await setup((_request, response) => json(response, 201, storedApi()));
    const created = await client.services.create(api, { fieldValidation: "Strict" });
    const request = peer.requests[0];
    expect(line(request)).toBe(`POST ${SERVICES}?fieldValidation=Strict`);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request?.body ?? "")).toEqual({
      ...api,
      apiVersion: "compute.example.dev/v1alpha1",
      kind: "Service",
    });
    expect(created.metadata.uid).toBe("u-1");
  });

  it("list passes labelSelector, limit and continue", async () => {
    const { peer, client } = await setup((_request, response) =>
      json(response, 200, { apiVersion: "v1", kind: "ServiceList", metadata: {}, items: [] }),
    );
    await client.services.list({ labelSelector: "team=edge", limit: 2, continue: "c1" });
    expect(line(peer.requests[0])).toBe(`GET ${SERVICES}?labelSelector=team%3Dedge&limit=2&continue=c1`);
  });

  it("listAll follows continue until the last page", async () => {
    const pages: Record<string, { items: Service[]; continue?: string }> = {
      "": { items: [storedApi(1)], continue: "page-2" },
      "page-2": { items: [storedApi(2)], continue: "page-3" },
      "page-3": { items: [storedApi(3)] },
    };
    const { peer, client } = await setup((request, response) => {
      const page = pages[new URL(request.url, "http://x").searchParams.get("continue") ?? ""];
      json(response, 200, {
        kind: "ServiceList",
        metadata: { continue: page?.continue },
        items: page?.items,
      });
    });
    const items = await client.services.listAll({ limit: 1 });
    expect(items.map((item) => item.metadata.generation)).toEqual([1, 2, 3]);
    expect(peer.requests).toHaveLength(3);
  });

  it("deleteCollection DELETEs the collection with a labelSelector", async () => {
    const { peer, client } = await setup((_request, response) =>
      json(response, 200, { kind: "ServiceList", metadata: {}, items: [] }),
    );
    await client.services.deleteCollection({ labelSelector: "team=edge" });
    expect(line(peer.requests[0])).toBe(`DELETE ${SERVICES}?labelSelector=team%3Dedge`);
  });

  it("replace PUTs the object under its name, filling metadata.name when left out", async () => {
    const { peer, client } = await setup((_request, response) => json(response, 200, storedApi(2)));
    await client.services.replace("api", { metadata: { resourceVersion: "1" }, spec: api.spec });
    const request = peer.requests[0];
    expect(line(request)).toBe(`PUT ${SERVICES}/api`);
    expect(JSON.parse(request?.body ?? "").metadata).toEqual({ name: "api", resourceVersion: "1" });
  });

  it("patch sends a merge patch or a JSON patch with its media type", async () => {
    const { peer, client } = await setup((_request, response) => json(response, 200, storedApi(2)));
    await client.services.patch("api", { spec: { revisionHistoryLimit: 3 } }, { type: "merge" });
    await client.services.patch("api", [{ op: "replace", path: "/spec/revisionHistoryLimit", value: 4 }], {
      type: "json",
      fieldValidation: "Strict",
    });
    const [merge, patch] = peer.requests;
    expect(line(merge)).toBe(`PATCH ${SERVICES}/api`);
    expect(merge?.headers["content-type"]).toBe("application/merge-patch+json");
    expect(line(patch)).toBe(`PATCH ${SERVICES}/api?fieldValidation=Strict`);
    expect(patch?.headers["content-type"]).toBe("application/json-patch+json");
    expect(JSON.parse(patch?.body ?? "")).toEqual([
      { op: "replace", path: "/spec/revisionHistoryLimit", value: 4 },
    ]);
  });

  it("delete returns the object while its deletion is in progress, nothing once it is gone", async () => {
    const terminating = {
      ...storedApi(),
      metadata: { ...storedApi().metadata, deletionTimestamp: "2026-03-01T12:00:00Z" },
    };
    // 200 with the object as kube-apiserver answers (202 for the deprecated orphanDependents=false).
    const { peer, client } = await setup((_request, response, index) =>
      index < 2
        ? json(response, index === 0 ? 200 : 202, terminating)
        : json(response, 200, { kind: "Status", apiVersion: "v1", status: "Success", code: 200 }),
    );
    await expect(client.services.delete("api")).resolves.toEqual(terminating);
    await expect(client.services.delete("api")).resolves.toEqual(terminating);
    await expect(client.services.delete("api")).resolves.toBeUndefined();
    expect(line(peer.requests[0])).toBe(`DELETE ${SERVICES}/api`);
  });

  it("get names the object in a NotFound error", async () => {
    const { client } = await setup((_request, response) =>
      json(response, 404, {
        kind: "Status",
        code: 404,
        reason: "NotFound",
        message: 'services "api" not found',
      }),
    );
    await expect(client.services.get("api")).rejects.toThrow(
      'Service "api" was not found (404 NotFound): services "api" not found',
    );
  });
});
