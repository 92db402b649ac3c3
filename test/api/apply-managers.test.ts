import { describe, expect, it } from "vitest";
import { manifest, pathOf, type TestServer } from "../helpers/server";
import { applyServer, entry, MERGE, service } from "./apply-fixtures";

describe("server-side apply", () => {
  let server: TestServer;
  const apply = applyServer((started) => {
    server = started;
  });

  describe("two managers", () => {
    it("share a map-list by name: each owns its items, and dropping one leaves the other's", async () => {
      await apply("Service", "web", service("web", { env: [{ name: "A", value: "1" }] }));
      const both = await apply(
        "Service",
        "web",
        service("web", {
          env: [{ name: "B", value: "2" }],
          bindings: [{ name: "KV", type: "kv", kv: { namespace: "n" } }],
        }),
        "fieldManager=b",
      );
      expect(both.status).toBe(200);
      expect(both.body.spec.template.spec.env).toEqual([
        { name: "A", value: "1" },
        { name: "B", value: "2" },
      ]);
      expect(entry(both.body, "a").fieldsV1["f:spec"]["f:template"]["f:spec"]["f:env"]).toEqual({
        'k:{"name":"A"}': { ".": {}, "f:name": {}, "f:value": {} },
      });
      expect(entry(both.body, "b").fieldsV1["f:spec"]["f:template"]["f:spec"]["f:env"]).toEqual({
        'k:{"name":"B"}': { ".": {}, "f:name": {}, "f:value": {} },
      });
      // a stops managing A: A goes, B (b's) stays.
      const dropped = await apply("Service", "web", service("web", {}));
      expect(dropped.body.spec.template.spec.env).toEqual([{ name: "B", value: "2" }]);
      expect(dropped.body.spec.template.spec.bindings).toEqual([
        { name: "KV", type: "kv", kv: { namespace: "n" } },
      ]);
    });

    it("refuses (409) to change a field another manager owns, one cause per field naming the manager", async () => {
      const created = await server.call("POST", `${pathOf("Proxy")}?fieldManager=kubectl-client-side-apply`, {
        body: manifest("Proxy", "edge", { shutdown: { drainTimeout: "10s", minimumDrainTime: "40s" } }),
      });
      expect(created.status).toBe(201);
      const reply = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { shutdown: { drainTimeout: "20s", minimumDrainTime: "50s" } }),
      );
      expect(reply.status).toBe(409);
      expect(reply.body).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "Conflict",
        code: 409,
        message: expect.stringContaining("Apply failed with 2 conflicts"),
        details: { name: "edge", group: "core.example.dev", kind: "proxies" },
      });
      expect(reply.body.details.causes).toEqual([
        {
          reason: "FieldManagerConflict",
          message: 'conflict with "kubectl-client-side-apply" using core.example.dev/v1alpha2',
          field: ".spec.shutdown.drainTimeout",
        },
        {
          reason: "FieldManagerConflict",
          message: 'conflict with "kubectl-client-side-apply" using core.example.dev/v1alpha2',
          field: ".spec.shutdown.minimumDrainTime",
        },
      ]);
      const one = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { shutdown: { drainTimeout: "20s" } }),
      );
      expect(one.body.message).toBe(
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using core.example.dev/v1alpha2: .spec.shutdown.drainTimeout',
      );
      expect((await server.call("GET", pathOf("Proxy", "edge"))).body.spec.shutdown.drainTimeout).toBe("10s");
    });

    it("names an Apply manager without its version, and a conflicting item of a map-list by its key", async () => {
      await apply("Service", "web", service("web", { env: [{ name: "A", value: "1" }] }));
      const reply = await apply(
        "Service",
        "web",
        service("web", { env: [{ name: "A", value: "2" }] }),
        "fieldManager=b",
      );
      expect(reply.status).toBe(409);
      expect(reply.body.details.causes).toEqual([
        {
          reason: "FieldManagerConflict",
          message: 'conflict with "a"',
          field: '.spec.template.spec.env[name="A"].value',
        },
      ]);
    });

    it("lets a second manager co-own a field by applying the same value", async () => {
      await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      const same = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { provider: "onprem" }),
        "fieldManager=b",
      );
      expect(same.status).toBe(200);
      expect(entry(same.body, "a").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      expect(entry(same.body, "b").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      // a drops it: b still owns it, so it stays.
      const dropped = await apply("Proxy", "edge", manifest("Proxy", "edge", {}));
      expect(dropped.body.spec.provider).toBe("onprem");
    });

    it("takes ownership with force=true: the other manager loses the field", async () => {
      await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { provider: "onprem", shutdown: { drainTimeout: "10s" } }),
      );
      const forced = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { provider: "metal" }),
        "fieldManager=b&force=true",
      );
      expect(forced.status).toBe(200);
      expect(forced.body.spec.provider).toBe("metal");
      expect(entry(forced.body, "a").fieldsV1).toEqual({
        "f:spec": { "f:shutdown": { "f:drainTimeout": {} } },
      });
      expect(entry(forced.body, "b").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      // b now owns provider: a may no longer change it without force.
      const back = await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      expect(back.status).toBe(409);
      expect(back.body.details.causes[0].message).toBe('conflict with "b"');
    });

    it("an update by another writer takes the fields it changes, without a conflict", async () => {
      await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      const patched = await server.call("PATCH", `${pathOf("Proxy", "edge")}?fieldManager=ops`, {
        body: { spec: { provider: "metal" } },
        contentType: MERGE,
      });
      expect(patched.status).toBe(200);
      expect(entry(patched.body, "a")).toBeUndefined();
      expect(entry(patched.body, "ops", "Update").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
    });
  });
});
