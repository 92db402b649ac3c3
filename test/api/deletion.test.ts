import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KINDS } from "../../sdk/schema";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";

describe("deletion", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ proxyDeletionGraceMs: 300 });
  });
  afterEach(async () => {
    await server?.close();
  });

  describe("of a Proxy is two-phase", () => {
    beforeEach(async () => {
      await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "draining", {}) });
    });

    // kube-apiserver's code for a delete that only marks the object (a CRD's finalizers, here the drain's):
    // 200 with the object (k8s.io/apiserver pkg/endpoints/handlers/delete.go).
    it("answers the first DELETE with 200 and the object carrying deletionTimestamp", async () => {
      const reply = await server.call("DELETE", pathOf("Proxy", "draining"));
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ kind: "Proxy", metadata: { name: "draining" } });
      expect(reply.body.metadata.deletionTimestamp).toMatch(/Z$/);
      const during = await server.call("GET", pathOf("Proxy", "draining"));
      expect(during.status).toBe(200);
      expect(during.body.metadata.deletionTimestamp).toBe(reply.body.metadata.deletionTimestamp);
    });

    it("answers a second DELETE while terminating with 200 and the same object", async () => {
      const first = await server.call("DELETE", pathOf("Proxy", "draining"));
      const second = await server.call("DELETE", pathOf("Proxy", "draining"));
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ kind: "Proxy" });
      expect(second.body.metadata).toEqual(first.body.metadata);
    });

    it("answers 202 only for the deprecated orphanDependents=false, in the query or the body", async () => {
      const query = await server.call("DELETE", `${pathOf("Proxy", "draining")}?orphanDependents=false`);
      expect(query.status, query.text).toBe(202);
      expect(query.body.metadata.deletionTimestamp).toBeDefined();
      const body = await server.call("DELETE", pathOf("Proxy", "draining"), {
        body: { kind: "DeleteOptions", apiVersion: "v1", orphanDependents: false },
      });
      expect(body.status, body.text).toBe(202);
      expect(body.body.metadata).toEqual(query.body.metadata);
      const policy = await server.call(
        "DELETE",
        `${pathOf("Proxy", "draining")}?propagationPolicy=Background`,
      );
      expect(policy.status, policy.text).toBe(200);
    });

    it("answers a removal at once with 200 and a Success Status, orphanDependents=false or not", async () => {
      // No finalizer holds a revision: it goes at once.
      const body = manifest("ServiceRevision", "gone", VALID_SPECS.ServiceRevision);
      expect((await server.call("POST", pathOf("ServiceRevision"), { body })).status).toBe(201);
      const reply = await server.call(
        "DELETE",
        `${pathOf("ServiceRevision", "gone")}?orphanDependents=false`,
      );
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ kind: "Status", status: "Success", code: 200 });
    });

    it("makes the object disappear once the controller's drain is over", async () => {
      await server.call("DELETE", pathOf("Proxy", "draining"));
      await expect.poll(async () => (await server.call("GET", pathOf("Proxy", "draining"))).status).toBe(404);
    });

    it("refuses to create the same name while the old object terminates (409)", async () => {
      await server.call("DELETE", pathOf("Proxy", "draining"));
      const reply = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "draining", {}) });
      expect(reply.status).toBe(409);
    });

    it("keeps deletionTimestamp through updates that try to drop it", async () => {
      const marked = (await server.call("DELETE", pathOf("Proxy", "draining"))).body;
      const { deletionTimestamp: _dropped, ...metadata } = marked.metadata;
      const reply = await server.call("PUT", pathOf("Proxy", "draining"), { body: { ...marked, metadata } });
      expect(reply.status).toBe(200);
      expect(reply.body.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
    });

    it("marks every selected Proxy on delete-collection and answers them", async () => {
      const reply = await server.call("DELETE", pathOf("Proxy"));
      expect(reply.status).toBe(200);
      expect(reply.body.items).toHaveLength(1);
      expect(reply.body.items[0].metadata.deletionTimestamp).toBeDefined();
      await expect.poll(async () => (await server.call("GET", pathOf("Proxy"))).body.items).toEqual([]);
    });
  });

  describe("of a Service cascades", () => {
    const revision = (name: string, owner: { name: string; uid: string } | undefined) =>
      manifest("ServiceRevision", name, VALID_SPECS.ServiceRevision, {
        labels: { test: "cascade" },
        ...(owner && {
          ownerReferences: [
            {
              apiVersion: KINDS.Service.apiVersion,
              kind: "Service",
              name: owner.name,
              uid: owner.uid,
              controller: true,
            },
          ],
        }),
      });
    const revisionNames = async () =>
      (await server.call("GET", `${pathOf("ServiceRevision")}?labelSelector=test%3Dcascade`)).body.items.map(
        (item: { metadata: { name: string } }) => item.metadata.name,
      );

    it("to the ServiceRevisions it owns, and only those", async () => {
      const web = (
        await server.call("POST", pathOf("Service"), {
          body: manifest("Service", "web", VALID_SPECS.Service),
        })
      ).body;
      const api = (
        await server.call("POST", pathOf("Service"), {
          body: manifest("Service", "api", VALID_SPECS.Service),
        })
      ).body;
      for (const body of [
        revision("web-r1", web.metadata),
        revision("web-r2", web.metadata),
        revision("api-r1", api.metadata),
        revision("loose-r1", undefined),
      ]) {
        expect((await server.call("POST", pathOf("ServiceRevision"), { body })).status).toBe(201);
      }

      const reply = await server.call("DELETE", pathOf("Service", "web"));
      expect(reply.status).toBe(200);
      expect(await revisionNames()).toEqual(["api-r1", "loose-r1"]);
    });

    it("from delete-collection too", async () => {
      const web = (
        await server.call("POST", pathOf("Service"), {
          body: manifest("Service", "web", VALID_SPECS.Service),
        })
      ).body;
      await server.call("POST", pathOf("ServiceRevision"), { body: revision("web-r1", web.metadata) });
      expect((await server.call("DELETE", pathOf("Service"))).status).toBe(200);
      expect(await revisionNames()).toEqual([]);
    });

    it("matching owners by uid, not by name", async () => {
      await server.call("POST", pathOf("Service"), { body: manifest("Service", "web", VALID_SPECS.Service) });
      const api = (
        await server.call("POST", pathOf("Service"), {
          body: manifest("Service", "api", VALID_SPECS.Service),
        })
      ).body;
      await server.call("POST", pathOf("ServiceRevision"), {
        body: revision("misnamed-r1", { name: "web", uid: api.metadata.uid }),
      });
      await server.call("DELETE", pathOf("Service", "web"));
      expect(await revisionNames()).toEqual(["misnamed-r1"]);
      await server.call("DELETE", pathOf("Service", "api"));
      expect(await revisionNames()).toEqual([]);
    });
  });
});
