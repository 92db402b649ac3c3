import { describe, expect, it } from "vitest";
import { KINDS } from "../../sdk/schema";
import { manifest, pathOf, type TestServer } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";
import { APPLY, entryOf, JSON_PATCH, MERGE, statusOf, statusServer } from "./status-fixtures";

const { apiVersion } = KINDS.Proxy;

/**
 * Server-side apply of the status subresource, and writes to the object itself, which ignore the status (as
 * kube-apiserver's status strategy for a CRD has it).
 */
describe("the status subresource", () => {
  let server: TestServer;
  const { fresh, create } = statusServer((started) => {
    server = started;
  });

  describe("server-side apply", () => {
    const config = (name: string, status: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      apiVersion,
      kind: "Proxy",
      metadata: { name },
      ...extra,
      status,
    });

    it("merges the applied status, ignores the spec and records an Apply entry with subresource status", async () => {
      const name = fresh("apply");
      const created = await create(name);
      await server.call("PATCH", `${statusOf(name)}?fieldManager=other`, {
        contentType: MERGE,
        body: { status: { phase: "Ready" } },
      });
      const reply = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator`, {
        contentType: APPLY,
        body: config(
          name,
          { conditions: [{ type: "Ready", status: "True" }] },
          { spec: { provider: "aws" } },
        ),
      });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.status).toEqual({ phase: "Ready", conditions: [{ type: "Ready", status: "True" }] });
      expect(reply.body.spec).toEqual(created.spec);
      expect(reply.body.metadata.generation).toBe(1);
      expect(entryOf(reply.body, "operator", "status")).toEqual({
        manager: "operator",
        operation: "Apply",
        apiVersion,
        time: expect.any(String),
        fieldsType: "FieldsV1",
        fieldsV1: { "f:status": { "f:conditions": {} } },
        subresource: "status",
      });
      // Applying the same configuration again changes nothing, not even the resourceVersion.
      const again = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator`, {
        contentType: APPLY,
        body: config(name, { conditions: [{ type: "Ready", status: "True" }] }),
      });
      expect(again.body.metadata.resourceVersion).toBe(reply.body.metadata.resourceVersion);
      // A field another manager owns is a conflict unless forced.
      const conflict = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator`, {
        contentType: APPLY,
        body: config(name, { conditions: [{ type: "Ready", status: "True" }], phase: "Gone" }),
      });
      expect(conflict.status).toBe(409);
      expect(conflict.body).toMatchObject({
        reason: "Conflict",
        message: `Apply failed with 1 conflict: conflict with "other" with subresource "status" using ${apiVersion}: .status.phase`,
      });
      const forced = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator&force=true`, {
        contentType: APPLY,
        body: config(name, { conditions: [{ type: "Ready", status: "True" }], phase: "Gone" }),
      });
      expect(forced.status).toBe(200);
      expect(forced.body.status.phase).toBe("Gone");
      // The forced field leaves the other manager, which keeps the status object it added (".").
      expect(entryOf(forced.body, "other", "status").fieldsV1).toEqual({ "f:status": {} });
      // What the manager no longer applies leaves the status.
      const dropped = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator`, {
        contentType: APPLY,
        body: config(name, { phase: "Gone" }),
      });
      expect(dropped.body.status).toEqual({ phase: "Gone" });
    });
  });

  describe("a write to the object itself ignores the status", () => {
    const withStatus = async (name: string) => {
      await create(name);
      return (
        await server.call("PATCH", statusOf(name), {
          contentType: MERGE,
          body: { status: { phase: "Ready" } },
        })
      ).body;
    };

    it("on create, PUT, merge patch, JSON patch and apply", async () => {
      const created = await server.call("POST", pathOf("Proxy"), {
        body: { ...manifest("Proxy", fresh("create"), {}), status: { phase: "Hacked" } },
      });
      expect(created.body).not.toHaveProperty("status");

      const name = fresh("main");
      const current = await withStatus(name);
      const put = await server.call("PUT", pathOf("Proxy", name), {
        body: {
          ...current,
          metadata: { ...current.metadata, labels: { step: "put" } },
          status: { phase: "Hacked" },
        },
      });
      expect(put.status, put.text).toBe(200);
      expect(put.body.metadata.labels).toEqual({ step: "put" });
      expect(put.body.status).toEqual({ phase: "Ready" });
      const merge = await server.call("PATCH", pathOf("Proxy", name), {
        contentType: MERGE,
        body: { status: { phase: "Hacked" } },
      });
      expect(merge.body.status).toEqual({ phase: "Ready" });
      const removed = await server.call("PATCH", pathOf("Proxy", name), {
        contentType: MERGE,
        body: { status: null },
      });
      expect(removed.body.status).toEqual({ phase: "Ready" });
      const json = await server.call("PATCH", pathOf("Proxy", name), {
        contentType: JSON_PATCH,
        body: [{ op: "replace", path: "/status/phase", value: "Hacked" }],
      });
      expect(json.body.status).toEqual({ phase: "Ready" });
      const applied = await server.call("PATCH", `${pathOf("Proxy", name)}?fieldManager=m`, {
        contentType: APPLY,
        body: {
          apiVersion,
          kind: "Proxy",
          metadata: { name },
          spec: VALID_SPECS.Proxy,
          status: { phase: "Hacked" },
        },
      });
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body.status).toEqual({ phase: "Ready" });
      for (const entry of applied.body.metadata.managedFields) {
        if (entry.subresource === undefined) expect(entry.fieldsV1).not.toHaveProperty("f:status");
      }
      expect(server.store.get("Proxy", name)?.status).toEqual({ phase: "Ready" });
    });
  });
});
