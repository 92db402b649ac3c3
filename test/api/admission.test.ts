import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifest, pathOf, startTestServer, type TestServer, warningsOf } from "../helpers/server";
import { DIGEST, SECRETS, VALID_SPECS } from "./fixtures";

describe("admission", () => {
  let server: TestServer;
  let counter = 0;
  /** A fresh name per call, so tests share one server without colliding. */
  const fresh = (prefix: string) => `${prefix}-${++counter}`;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  describe("defaults", () => {
    it("fills a Proxy's defaults on create", async () => {
      const reply = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", fresh("p"), {}) });
      expect(reply.body.spec).toEqual({
        provider: "cloud",
        shutdown: { drainTimeout: "30s", minimumDrainTime: "30s" },
      });
    });

    it("fills a Service's defaults on create", async () => {
      const reply = await server.call("POST", pathOf("Service"), {
        body: manifest("Service", fresh("s"), VALID_SPECS.Service),
      });
      expect(reply.body.spec).toMatchObject({
        revisionHistoryLimit: 10,
        template: { spec: { runtime: { timeout: "30s" }, backend: { protocol: "http1" } } },
      });
    });

    it("fills defaults again on update", async () => {
      const name = fresh("p");
      const created = (await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", name, {}) }))
        .body;
      const reply = await server.call("PUT", pathOf("Proxy", name), {
        body: { ...created, spec: { provider: "onprem" } },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.spec.shutdown).toEqual({ drainTimeout: "30s", minimumDrainTime: "30s" });
      expect(reply.body.metadata.generation).toBe(2);
    });
  });

  describe("rules of the shared schema", () => {
    it("rejects shutdown.minimumDrainTime below drainTimeout with one cause on that field", async () => {
      const spec = { shutdown: { drainTimeout: "1m", minimumDrainTime: "30s" } };
      const reply = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", fresh("p"), spec) });
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes).toEqual([
        expect.objectContaining({ field: "spec.shutdown.minimumDrainTime", reason: expect.any(String) }),
      ]);
    });

    it("rejects a Service with both source variants and with egress disabled plus a gatewayRef", async () => {
      const spec = {
        source: {
          oci: { repo: "registry.example.dev/a/b", digest: DIGEST },
          git: { url: "https://git.example.dev/a" },
        },
        template: {
          spec: {
            runtime: { compatibilityDate: "2024-09-01" },
            egress: { disabled: true, gatewayRef: "gw" },
          },
        },
      };
      const reply = await server.call("POST", pathOf("Service"), {
        body: manifest("Service", fresh("s"), spec),
      });
      expect(reply.status).toBe(422);
      const fields = reply.body.details.causes.map((cause: { field: string }) => cause.field);
      expect(fields.some((field: string) => field.startsWith("spec.source"))).toBe(true);
      expect(fields.some((field: string) => field.startsWith("spec.template.spec.egress"))).toBe(true);
    });

    it("requires a digest on a ServiceRevision's bundle", async () => {
      const spec = {
        ...VALID_SPECS.ServiceRevision,
        bundle: { repo: "registry.example.dev/a/b", tag: "v1" },
      };
      const reply = await server.call("POST", pathOf("ServiceRevision"), {
        body: manifest("ServiceRevision", fresh("r"), spec),
      });
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes).toEqual([expect.objectContaining({ field: "spec.bundle.digest" })]);
    });

    it("requires runtime.compatibilityDate on a Service, also when the template sets no runtime", async () => {
      const field = "spec.template.spec.runtime.compatibilityDate";
      for (const templateSpec of [{}, { runtime: { timeout: "10s" } }]) {
        const spec = { ...VALID_SPECS.Service, template: { spec: templateSpec } };
        const reply = await server.call("POST", pathOf("Service"), {
          body: manifest("Service", fresh("s"), spec),
        });
        expect(reply.status).toBe(422);
        expect(reply.body.reason).toBe("Invalid");
        expect(reply.body.details.causes).toEqual([
          {
            reason: "FieldValueRequired",
            field,
            message: `${field}: is required; set it to a date such as "2026-01-01" (the worker runtime's compatibility date)`,
          },
        ]);
      }
    });

    it("refuses a merge patch that removes a Service's runtime", async () => {
      const name = fresh("s");
      await server.call("POST", pathOf("Service"), { body: manifest("Service", name, VALID_SPECS.Service) });
      const reply = await server.call("PATCH", pathOf("Service", name), {
        body: { spec: { template: { spec: { runtime: null } } } },
        contentType: "application/merge-patch+json",
      });
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual([
        "spec.template.spec.runtime.compatibilityDate",
      ]);
    });

    it("admits a ServiceRevision without runtime: only a Service must name the date", async () => {
      const { runtime: _runtime, ...spec } = VALID_SPECS.ServiceRevision;
      const reply = await server.call("POST", pathOf("ServiceRevision"), {
        body: manifest("ServiceRevision", fresh("r"), spec),
      });
      expect(reply.status).toBe(201);
    });

    it("refuses to switch a Service between backend and filter mode on update", async () => {
      const name = fresh("s");
      await server.call("POST", pathOf("Service"), { body: manifest("Service", name, VALID_SPECS.Service) });
      await server.idle(); // the controller's status write moves resourceVersion
      const created = (await server.call("GET", pathOf("Service", name))).body;
      const template = {
        spec: { ...created.spec.template.spec, backend: undefined, filter: { phase: "request" } },
      };
      const reply = await server.call("PUT", pathOf("Service", name), {
        body: { ...created, spec: { ...created.spec, template } },
      });
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes.map((cause: { field: string }) => cause.field)).toContain(
        "spec.template.spec.filter",
      );
    });

    it("accepts an egress.gatewayRef that names no existing gateway", async () => {
      const spec = {
        ...VALID_SPECS.Service,
        template: {
          spec: { runtime: { compatibilityDate: "2024-09-01" }, egress: { gatewayRef: "nowhere" } },
        },
      };
      const reply = await server.call("POST", pathOf("Service"), {
        body: manifest("Service", fresh("s"), spec),
      });
      expect(reply.status).toBe(201);
    });

    it("sends a rule's warnings as Warning headers and still admits the object", async () => {
      const spec = {
        ...VALID_SPECS.Service,
        source: { oci: { repo: "registry.example.dev/a/b", tag: "v1" } },
      };
      const reply = await server.call("POST", pathOf("Service"), {
        body: manifest("Service", fresh("s"), spec),
      });
      expect(reply.status).toBe(201);
      expect(warningsOf(reply)).toEqual([expect.stringMatching(/^299 - "spec\.source\.oci\.digest: .*"$/)]);
    });
  });

  describe("metadata", () => {
    it("requires a name, and names no object in the error when there is none", async () => {
      const reply = await server.call("POST", pathOf("Service"), {
        body: { ...manifest("Service", "unused", VALID_SPECS.Service), metadata: {} },
      });
      expect(reply.status).toBe(422);
      expect(reply.body.message).toMatch(
        /^Service\.compute\.example\.dev is invalid: metadata\.name: is required/,
      );
      expect(reply.body.details.name).toBeUndefined();
      expect(reply.body.details.causes).toEqual([
        expect.objectContaining({ field: "metadata.name", reason: "FieldValueRequired" }),
      ]);
    });

    it("generates a name from metadata.generateName", async () => {
      const body = { ...manifest("Proxy", "x", {}), metadata: { generateName: "edge-" } };
      const reply = await server.call("POST", pathOf("Proxy"), { body });
      expect(reply.status).toBe(201);
      expect(reply.body.metadata.name).toMatch(/^edge-[a-z0-9]{5}$/);
      expect(reply.body.metadata.generateName).toBe("edge-");
    });

    it("rejects invalid label keys and values with 422 on metadata.labels", async () => {
      const body = manifest("Proxy", fresh("p"), {}, { labels: { "bad key": "v", ok: "not ok!" } });
      const reply = await server.call("POST", pathOf("Proxy"), { body });
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes).toHaveLength(2);
      for (const cause of reply.body.details.causes) expect(cause.field).toBe("metadata.labels");
    });

    it("rejects an owner reference without uid with 422 on that field", async () => {
      const ownerReferences = [{ apiVersion: "compute.example.dev/v1alpha1", kind: "Service", name: "web" }];
      const reply = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", fresh("p"), {}, { ownerReferences }),
      });
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes).toEqual([
        expect.objectContaining({ field: "metadata.ownerReferences[0].uid", reason: "FieldValueRequired" }),
      ]);
    });

    it("ignores server-owned metadata sent by the client", async () => {
      const body = manifest(
        "Proxy",
        fresh("p"),
        {},
        { uid: "mine", generation: 7, creationTimestamp: "2000-01-01T00:00:00Z" },
      );
      const reply = await server.call("POST", pathOf("Proxy"), { body });
      expect(reply.status).toBe(201);
      expect(reply.body.metadata.uid).not.toBe("mine");
      expect(reply.body.metadata.generation).toBe(1);
      expect(reply.body.metadata.creationTimestamp).not.toBe("2000-01-01T00:00:00Z");
    });
  });

  describe("status is server-owned", () => {
    it("is dropped on create", async () => {
      const body = { ...manifest("Proxy", fresh("p"), {}), status: { phase: "Ready" } };
      const reply = await server.call("POST", pathOf("Proxy"), { body });
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBeUndefined();
    });

    it("keeps what the server wrote through a client's PUT", async () => {
      const name = fresh("p");
      await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", name, {}) });
      const stored = server.store.get("Proxy", name);
      if (stored) server.store.replaceStatus("Proxy", { ...stored, status: { phase: "Ready" } });
      const current = (await server.call("GET", pathOf("Proxy", name))).body;
      const reply = await server.call("PUT", pathOf("Proxy", name), {
        body: { ...current, status: { phase: "Hacked" } },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.status).toEqual({ phase: "Ready" });
    });
  });

  describe("fieldValidation", () => {
    const withUnknownFields = (name: string) => ({
      ...manifest("Proxy", name, { colour: "blue", shutdown: { drainTimeout: "30s", flavour: "x" } }),
      extra: true,
      metadata: { name, bogus: 1 },
    });

    it("drops unknown fields and names each in a Warning header by default (Warn)", async () => {
      const name = fresh("p");
      const reply = await server.call("POST", pathOf("Proxy"), { body: withUnknownFields(name) });
      expect(reply.status).toBe(201);
      expect(warningsOf(reply).sort()).toEqual(
        [
          '299 - "unknown field \\"extra\\""',
          '299 - "unknown field \\"metadata.bogus\\""',
          '299 - "unknown field \\"spec.colour\\""',
          '299 - "unknown field \\"spec.shutdown.flavour\\""',
        ].sort(),
      );
      const stored = server.store.get("Proxy", name);
      expect(stored?.spec).not.toHaveProperty("colour");
      expect(stored?.spec.shutdown).not.toHaveProperty("flavour");
    });

    it("treats fieldValidation=Warn as the default", async () => {
      const reply = await server.call("POST", `${pathOf("Proxy")}?fieldValidation=Warn`, {
        body: withUnknownFields(fresh("p")),
      });
      expect(reply.status).toBe(201);
      expect(warningsOf(reply)).toHaveLength(4);
    });

    it("drops unknown fields silently with Ignore", async () => {
      const name = fresh("p");
      const reply = await server.call("POST", `${pathOf("Proxy")}?fieldValidation=Ignore`, {
        body: withUnknownFields(name),
      });
      expect(reply.status).toBe(201);
      expect(warningsOf(reply)).toEqual([]);
      expect(server.store.get("Proxy", name)?.spec).not.toHaveProperty("colour");
    });

    it("rejects unknown fields with 422 under Strict, one cause each", async () => {
      const reply = await server.call("POST", `${pathOf("Proxy")}?fieldValidation=Strict`, {
        body: withUnknownFields(fresh("p")),
      });
      expect(reply.status).toBe(422);
      const fields = reply.body.details.causes.map((cause: { field: string }) => cause.field).sort();
      expect(fields).toEqual(["extra", "metadata.bogus", "spec.colour", "spec.shutdown.flavour"]);
    });

    it("applies to updates and patches as well", async () => {
      const name = fresh("p");
      await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", name, {}) });
      const strict = await server.call("PATCH", `${pathOf("Proxy", name)}?fieldValidation=Strict`, {
        body: { spec: { colour: "blue" } },
        contentType: "application/merge-patch+json",
      });
      expect(strict.status).toBe(422);
      const warned = await server.call("PATCH", pathOf("Proxy", name), {
        body: { spec: { colour: "blue" } },
        contentType: "application/merge-patch+json",
      });
      expect(warned.status).toBe(200);
      expect(warningsOf(warned)).toEqual(['299 - "unknown field \\"spec.colour\\""']);
    });
  });

  describe("ServiceRevision immutability", () => {
    it("rejects a PUT or PATCH that changes the spec with 422 on spec", async () => {
      const name = fresh("r");
      const created = (
        await server.call("POST", pathOf("ServiceRevision"), {
          body: manifest("ServiceRevision", name, VALID_SPECS.ServiceRevision),
        })
      ).body;
      const put = await server.call("PUT", pathOf("ServiceRevision", name), {
        body: { ...created, spec: { ...created.spec, env: [{ name: "A", value: "1" }] } },
      });
      expect(put.status).toBe(422);
      expect(put.body.details.causes).toEqual([
        expect.objectContaining({ field: "spec", reason: "FieldValueForbidden" }),
      ]);
      const patch = await server.call("PATCH", pathOf("ServiceRevision", name), {
        body: [{ op: "replace", path: "/spec/runtime/compatibilityDate", value: "2025-01-01" }],
        contentType: "application/json-patch+json",
      });
      expect(patch.status).toBe(422);
    });

    it("accepts writing back the spec it read, secrets redacted", async () => {
      const name = fresh("r");
      const spec = {
        ...VALID_SPECS.ServiceRevision,
        bundle: {
          repo: "registry.example.dev/a/b",
          digest: DIGEST,
          credentials: { accessToken: SECRETS.accessToken },
        },
      };
      await server.call("POST", pathOf("ServiceRevision"), { body: manifest("ServiceRevision", name, spec) });
      const read = (await server.call("GET", pathOf("ServiceRevision", name))).body;
      const reply = await server.call("PUT", pathOf("ServiceRevision", name), {
        body: { ...read, metadata: { ...read.metadata, labels: { relabelled: "yes" } } },
      });
      expect(reply.status).toBe(200);
      expect(server.store.get("ServiceRevision", name)?.spec.bundle).toMatchObject({
        credentials: { accessToken: SECRETS.accessToken },
      });
    });
  });
});
