import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const PROXY = pathOf("Proxy", "patched");

describe("PATCH", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
    const body = manifest(
      "Proxy",
      "patched",
      { shutdown: { drainTimeout: "10s", minimumDrainTime: "20s" } },
      {
        labels: { team: "edge", tier: "front" },
      },
    );
    expect((await server.call("POST", pathOf("Proxy"), { body })).status).toBe(201);
  });
  afterEach(async () => {
    await server?.close();
  });

  const merge = (body: unknown) => server.call("PATCH", PROXY, { body, contentType: MERGE });
  const jsonPatch = (body: unknown) => server.call("PATCH", PROXY, { body, contentType: JSON_PATCH });

  describe("application/merge-patch+json", () => {
    it("merges objects, replaces values and removes keys set to null", async () => {
      const reply = await merge({
        metadata: { labels: { tier: null, zone: "a" } },
        spec: { shutdown: { drainTimeout: "15s" }, provider: "onprem" },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.metadata.labels).toEqual({ team: "edge", zone: "a" });
      expect(reply.body.spec).toMatchObject({
        provider: "onprem",
        shutdown: { drainTimeout: "15s", minimumDrainTime: "20s" },
      });
      expect(reply.body.metadata.generation).toBe(2);
    });

    it("applies defaults again to what it removed", async () => {
      const reply = await merge({ spec: { shutdown: { drainTimeout: null, minimumDrainTime: null } } });
      expect(reply.status).toBe(200);
      expect(reply.body.spec.shutdown).toEqual({ drainTimeout: "30s", minimumDrainTime: "30s" });
    });

    it("goes through the same admission as PUT (422 on a broken rule)", async () => {
      const reply = await merge({ spec: { shutdown: { drainTimeout: "1m" } } });
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes[0].field).toBe("spec.shutdown.minimumDrainTime");
    });

    it("honours a resourceVersion in the patch (409 when stale)", async () => {
      const read = (await server.call("GET", PROXY)).body;
      expect((await merge({ metadata: { labels: { a: "b" } } })).status).toBe(200);
      const reply = await merge({
        metadata: { resourceVersion: read.metadata.resourceVersion, labels: { a: "c" } },
      });
      expect(reply.status).toBe(409);
      expect(reply.body.reason).toBe("Conflict");
    });

    it("refuses a patch that renames the object or changes its kind (400)", async () => {
      expect((await merge({ metadata: { name: "renamed" } })).status).toBe(400);
      expect((await merge({ kind: "Service" })).status).toBe(400);
    });

    it("ignores status", async () => {
      const reply = await merge({ status: { phase: "Hacked" } });
      expect(reply.status).toBe(200);
      expect(reply.body.status).toBeUndefined();
    });
  });

  describe("application/json-patch+json", () => {
    it("applies add, replace, remove, copy and move in order", async () => {
      const reply = await jsonPatch([
        { op: "add", path: "/metadata/labels/zone", value: "a" },
        { op: "replace", path: "/spec/provider", value: "onprem" },
        { op: "remove", path: "/metadata/labels/tier" },
        { op: "copy", from: "/metadata/labels/zone", path: "/metadata/labels/region" },
        { op: "move", from: "/metadata/labels/team", path: "/metadata/labels/owner" },
      ]);
      expect(reply.status).toBe(200);
      expect(reply.body.metadata.labels).toEqual({ zone: "a", region: "a", owner: "edge" });
      expect(reply.body.spec.provider).toBe("onprem");
    });

    it("applies the patch when every test operation holds", async () => {
      const reply = await jsonPatch([
        { op: "test", path: "/spec/shutdown/drainTimeout", value: "10s" },
        { op: "replace", path: "/spec/shutdown/drainTimeout", value: "20s" },
      ]);
      expect(reply.status).toBe(200);
      expect(reply.body.spec.shutdown.drainTimeout).toBe("20s");
    });

    it("rejects the whole patch with 422 Invalid when a test operation fails, changing nothing", async () => {
      const before = (await server.call("GET", PROXY)).body;
      const reply = await jsonPatch([
        { op: "replace", path: "/spec/provider", value: "onprem" },
        { op: "test", path: "/spec/shutdown/drainTimeout", value: "99s" },
      ]);
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({ kind: "Status", reason: "Invalid" });
      expect(reply.body.message).toContain("test /spec/shutdown/drainTimeout");
      expect((await server.call("GET", PROXY)).body).toEqual(before);
    });

    it("rejects an operation on a path that does not exist with 422 Invalid", async () => {
      const reply = await jsonPatch([{ op: "remove", path: "/spec/telemetry/tracing" }]);
      expect(reply.status).toBe(422);
    });

    it("rejects a document that is not a list of operations with 400 BadRequest", async () => {
      for (const body of [{ op: "add" }, ["add"], JSON.stringify("nope")]) {
        const reply = await jsonPatch(body);
        expect(reply.status).toBe(400);
        expect(reply.body.reason).toBe("BadRequest");
      }
    });

    it("rejects an unknown operation with 422 Invalid", async () => {
      expect((await jsonPatch([{ op: "frobnicate", path: "/spec" }])).status).toBe(422);
    });

    it("goes through the same admission as PUT", async () => {
      const reply = await jsonPatch([
        { op: "replace", path: "/spec/shutdown/minimumDrainTime", value: "1s" },
      ]);
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes[0].field).toBe("spec.shutdown.minimumDrainTime");
    });
  });

  it("needs a patch media type (415 otherwise, including none)", async () => {
    expect((await server.call("PATCH", PROXY, { body: {}, contentType: "application/json" })).status).toBe(
      415,
    );
    expect((await server.call("PATCH", PROXY)).status).toBe(415);
  });
});
