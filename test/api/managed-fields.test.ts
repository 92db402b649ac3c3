import { describe, expect, it } from "vitest";
import { type Json, manifest, pathOf, type TestServer } from "../helpers/server";
import { applyServer, entry, RFC3339 } from "./apply-fixtures";

describe("managed fields", () => {
  let server: TestServer;
  const apply = applyServer((started) => {
    server = started;
  });

  describe("other writes record their manager (operation Update)", () => {
    const userAgent = { "user-agent": "my-tool/1.2.3 (linux/amd64) build/abc" };

    it("POST: the manager is the User-Agent's product name, and owns every field it set", async () => {
      const reply = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "edge", { provider: "onprem" }, { annotations: { note: "x" } }),
        headers: userAgent,
      });
      expect(reply.status).toBe(201);
      expect(reply.body.metadata.managedFields).toEqual([
        {
          manager: "my-tool",
          operation: "Update",
          apiVersion: "core.example.dev/v1alpha2",
          time: expect.stringMatching(RFC3339),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:annotations": { ".": {}, "f:note": {} } },
            "f:spec": {
              ".": {},
              "f:provider": {},
              "f:shutdown": { ".": {}, "f:drainTimeout": {}, "f:minimumDrainTime": {} },
            },
          },
        },
      ]);
    });

    it("PUT: the fieldManager parameter wins over the User-Agent; the manager owns only what it changed", async () => {
      const created = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "edge", {}),
        headers: userAgent,
      });
      const replaced = await server.call("PUT", `${pathOf("Proxy", "edge")}?fieldManager=deployer`, {
        body: { ...created.body, spec: { ...created.body.spec, provider: "onprem" } },
        headers: userAgent,
      });
      expect(replaced.status).toBe(200);
      expect(entry(replaced.body, "deployer", "Update").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      expect(entry(replaced.body, "my-tool", "Update").fieldsV1["f:spec"]["f:provider"]).toBeUndefined();
    });

    it("PUT without a User-Agent product records the manager undici sends, or the empty one", async () => {
      const created = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "edge", {}),
        headers: { "user-agent": "undici" },
      });
      expect(created.body.metadata.managedFields[0].manager).toBe("undici");
    });

    it("a write that changes nothing leaves the managed fields as they were", async () => {
      const created = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "edge", {}) });
      const same = await server.call("PUT", `${pathOf("Proxy", "edge")}?fieldManager=other`, {
        body: created.body,
      });
      expect(same.body.metadata.managedFields).toEqual(created.body.metadata.managedFields);
    });

    it("[{}] resets ownership: afterwards only the writer's own changes are owned", async () => {
      await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }, { labels: { a: "1" } }));
      const reset = await server.call("PATCH", `${pathOf("Proxy", "edge")}?fieldManager=cleaner`, {
        body: [
          { op: "replace", path: "/metadata/managedFields", value: [{}] },
          { op: "replace", path: "/metadata/labels/a", value: "2" },
        ],
        contentType: "application/json-patch+json",
      });
      expect(reset.status).toBe(200);
      expect(reset.body.metadata.managedFields).toEqual([
        expect.objectContaining({
          manager: "cleaner",
          operation: "Update",
          fieldsV1: { "f:metadata": { "f:labels": { "f:a": {} } } },
        }),
      ]);
    });

    it("managed fields sent back with a write are kept; malformed ones are 422", async () => {
      const created = await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      const rewritten = [{ ...created.body.metadata.managedFields[0], manager: "renamed" }];
      const replaced = await server.call("PUT", pathOf("Proxy", "edge"), {
        body: { ...created.body, metadata: { ...created.body.metadata, managedFields: rewritten } },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body.metadata.managedFields.map((field: Json) => field.manager)).toEqual(["renamed"]);
      const malformed = await server.call("PUT", pathOf("Proxy", "edge"), {
        body: {
          ...replaced.body,
          metadata: { ...replaced.body.metadata, managedFields: [{ manager: "x", operation: "Delete" }] },
        },
      });
      expect(malformed.status).toBe(422);
      expect(malformed.body.details.causes[0].field).toBe("metadata.managedFields[0].operation");
    });
  });
});
