import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifest, pathOf, type Reply, startTestServer, type TestServer } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";

/** Every failure is a Kubernetes Status whose code matches the HTTP status. */
function expectStatus(reply: Reply, code: number, reason: string) {
  expect(reply.status).toBe(code);
  expect(reply.headers["content-type"]).toMatch(/^application\/json/);
  expect(reply.body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason });
  expect(reply.body.message).toEqual(expect.any(String));
}

describe("errors are Kubernetes Status objects", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "existing", {}) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers malformed JSON with 400 BadRequest", async () => {
    const reply = await server.call("POST", pathOf("Proxy"), { body: '{"apiVersion": ' });
    expectStatus(reply, 400, "BadRequest");
  });

  it("refuses query parameters it does not support or cannot read, rather than ignore them and widen a delete", async () => {
    const fieldSelector = await server.call(
      "DELETE",
      `${pathOf("Proxy")}?fieldSelector=spec.provider%3Dother`,
    );
    expectStatus(fieldSelector, 400, "BadRequest");
    expect(fieldSelector.body.message).toContain("fieldSelector: field label not supported: spec.provider");
    expectStatus(
      await server.call("DELETE", `${pathOf("Proxy")}?labelSelectr=team%3Dweb`),
      400,
      "BadRequest",
    );
    expectStatus(await server.call("GET", `${pathOf("Proxy")}?watch=maybe`), 400, "BadRequest");
    const dryRun = await server.call("POST", `${pathOf("Proxy")}?dryRun=Everything`, {
      body: manifest("Proxy", "dry", {}),
    });
    expectStatus(dryRun, 400, "BadRequest");
    expect(dryRun.body.message).toContain("dryRun");
    expect((await server.call("GET", pathOf("Proxy", "existing"))).status).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", "dry"))).status).toBe(404);
  });

  it("answers a body that is not an object with 400 BadRequest", async () => {
    expectStatus(await server.call("POST", pathOf("Proxy"), { body: "[1, 2]" }), 400, "BadRequest");
  });

  it("answers an apiVersion or kind that does not match the path with 400 BadRequest", async () => {
    const wrongKind = { ...manifest("Proxy", "p", {}), kind: "Service" };
    expectStatus(await server.call("POST", pathOf("Proxy"), { body: wrongKind }), 400, "BadRequest");
    const wrongVersion = { ...manifest("Proxy", "p", {}), apiVersion: "core.example.dev/v1" };
    expectStatus(await server.call("POST", pathOf("Proxy"), { body: wrongVersion }), 400, "BadRequest");
  });

  it("answers metadata of the wrong type with 400 BadRequest naming the field", async () => {
    const reply = await server.call("POST", pathOf("Proxy"), {
      body: manifest("Proxy", "p", {}, { labels: ["a"] }),
    });
    expectStatus(reply, 400, "BadRequest");
    expect(reply.body.message).toContain("metadata.labels");
  });

  it("answers a body over 3 MiB (twice the object limit) with 413 RequestEntityTooLarge", async () => {
    const body = manifest("Proxy", "big", {}, { annotations: { big: "x".repeat(3 * 1024 * 1024) } });
    expectStatus(await server.call("POST", pathOf("Proxy"), { body }), 413, "RequestEntityTooLarge");
  });

  it("answers a body nested absurdly deep with 400 BadRequest", async () => {
    const body = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    expectStatus(await server.call("POST", pathOf("Proxy"), { body }), 400, "BadRequest");
  });

  it("answers an unknown path with 404 NotFound", async () => {
    expectStatus(await server.call("GET", "/apis/core.example.dev/v1/proxies"), 404, "NotFound");
    expectStatus(await server.call("GET", "/nothing/here"), 404, "NotFound");
  });

  it("leaves details out of a failure that has none (a 400, a 410), as kube-apiserver does", async () => {
    const badSelector = await server.call(
      "GET",
      `${pathOf("Proxy")}?labelSelector=${encodeURIComponent("a in (")}`,
    );
    expectStatus(badSelector, 400, "BadRequest");
    expect(badSelector.body).not.toHaveProperty("details");
    const malformed = await server.call("POST", pathOf("Proxy"), { body: '{"apiVersion": ' });
    expectStatus(malformed, 400, "BadRequest");
    expect(malformed.body).not.toHaveProperty("details");
    const list = (await server.call("GET", pathOf("Proxy"))).body;
    await server.call("PATCH", pathOf("Proxy", "existing"), {
      body: { metadata: { labels: { moved: "on" } } },
      contentType: "application/merge-patch+json",
    });
    const old = await server.call(
      "GET",
      `${pathOf("Proxy")}?resourceVersion=${list.metadata.resourceVersion}&resourceVersionMatch=Exact`,
    );
    expectStatus(old, 410, "Expired");
    expect(old.body).not.toHaveProperty("details");
    const unknownPath = await server.call("GET", "/nothing/here");
    expectStatus(unknownPath, 404, "NotFound");
    expect(unknownPath.body).not.toHaveProperty("details");
  });

  it("answers a missing object with 404 NotFound naming it", async () => {
    const reply = await server.call("GET", pathOf("Service", "ghost"));
    expectStatus(reply, 404, "NotFound");
    expect(reply.body.details).toEqual({ name: "ghost", group: "compute.example.dev", kind: "services" });
    expect(reply.body.message).toBe('services.compute.example.dev "ghost" not found');
  });

  it("answers a method a path does not serve with 405 and an Allow header", async () => {
    const onCollection = await server.call("PUT", pathOf("Proxy"), { body: manifest("Proxy", "p", {}) });
    expectStatus(onCollection, 405, "MethodNotAllowed");
    expect(onCollection.headers.allow).toBe("GET, POST, DELETE");
    const onItem = await server.call("POST", pathOf("Proxy", "existing"), {
      body: manifest("Proxy", "p", {}),
    });
    expectStatus(onItem, 405, "MethodNotAllowed");
    expect(onItem.headers.allow).toBe("GET, PUT, PATCH, DELETE");
    expectStatus(await server.call("DELETE", "/healthz"), 405, "MethodNotAllowed");
  });

  it("answers a duplicate name with 409 AlreadyExists", async () => {
    const reply = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "existing", {}) });
    expectStatus(reply, 409, "AlreadyExists");
    expect(reply.body.message).toBe('proxies.core.example.dev "existing" already exists');
  });

  it("answers a stale resourceVersion with 409 Conflict", async () => {
    const current = (await server.call("GET", pathOf("Proxy", "existing"))).body;
    const first = await server.call("PUT", pathOf("Proxy", "existing"), {
      body: { ...current, metadata: { ...current.metadata, labels: { round: "1" } } },
    });
    expect(first.status).toBe(200);
    const stale = await server.call("PUT", pathOf("Proxy", "existing"), {
      body: { ...current, metadata: { ...current.metadata, labels: { round: "2" } } },
    });
    expectStatus(stale, 409, "Conflict");
  });

  it("answers an unsupported media type with 415 UnsupportedMediaType", async () => {
    const patch = { body: { metadata: { labels: { a: "b" } } } };
    expectStatus(
      await server.call("PATCH", pathOf("Proxy", "existing"), { ...patch, contentType: "application/json" }),
      415,
      "UnsupportedMediaType",
    );
    expectStatus(
      await server.call("PATCH", pathOf("Proxy", "existing"), {
        ...patch,
        contentType: "application/strategic-merge-patch+json",
      }),
      415,
      "UnsupportedMediaType",
    );
    expectStatus(
      await server.call("POST", pathOf("Proxy"), { body: "name: p", contentType: "application/yaml" }),
      415,
      "UnsupportedMediaType",
    );
    expectStatus(
      await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "p", {}),
        contentType: "text/plain",
      }),
      415,
      "UnsupportedMediaType",
    );
  });

  it("answers a spec that breaks the rules with 422 Invalid, one cause per violation", async () => {
    const spec = { shutdown: { drainTimeout: "40s", minimumDrainTime: "10s" }, telemetry: { tracing: {} } };
    const reply = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "invalid", spec) });
    expectStatus(reply, 422, "Invalid");
    expect(reply.body.details).toMatchObject({ name: "invalid", group: "core.example.dev", kind: "Proxy" });
    const fields = reply.body.details.causes.map((cause: { field: string }) => cause.field);
    expect(fields).toEqual(
      expect.arrayContaining(["spec.shutdown.minimumDrainTime", "spec.telemetry.tracing.enabled"]),
    );
    for (const cause of reply.body.details.causes) {
      expect(cause.reason).toMatch(/^FieldValue(Required|Invalid|Forbidden|NotSupported|Duplicate)$/);
      expect(cause.message).toContain(cause.field);
    }
  });

  it("answers a missing or invalid name with 422 Invalid on metadata.name", async () => {
    for (const metadata of [{ name: undefined }, { name: "Not_A_Name" }]) {
      const body = { ...manifest("Service", "x", VALID_SPECS.Service), metadata };
      const reply = await server.call("POST", pathOf("Service"), { body });
      expectStatus(reply, 422, "Invalid");
      expect(reply.body.details.causes).toEqual([expect.objectContaining({ field: "metadata.name" })]);
    }
  });

  it("answers a PUT without resourceVersion with 422 Invalid on metadata.resourceVersion", async () => {
    const reply = await server.call("PUT", pathOf("Proxy", "existing"), {
      body: manifest("Proxy", "existing", {}),
    });
    expectStatus(reply, 422, "Invalid");
    expect(reply.body.details.causes).toEqual([
      expect.objectContaining({ field: "metadata.resourceVersion", reason: "FieldValueRequired" }),
    ]);
  });

  it("answers a PUT whose body names another object with 400 BadRequest", async () => {
    const current = (await server.call("GET", pathOf("Proxy", "existing"))).body;
    const reply = await server.call("PUT", pathOf("Proxy", "existing"), {
      body: { ...current, metadata: { ...current.metadata, name: "other" } },
    });
    expectStatus(reply, 400, "BadRequest");
  });

  it("answers a PUT or PATCH of a missing object with 404 NotFound", async () => {
    const body = manifest("Proxy", "ghost", {}, { resourceVersion: "1" });
    expectStatus(await server.call("PUT", pathOf("Proxy", "ghost"), { body }), 404, "NotFound");
    expectStatus(
      await server.call("PATCH", pathOf("Proxy", "ghost"), {
        body: {},
        contentType: "application/merge-patch+json",
      }),
      404,
      "NotFound",
    );
    expectStatus(await server.call("DELETE", pathOf("Proxy", "ghost")), 404, "NotFound");
  });

  it("answers bad query parameters with 400 BadRequest", async () => {
    for (const query of [
      "labelSelector=a%20in%20()",
      "labelSelector=-bad-",
      "limit=-1",
      "limit=ten",
      "continue=nope",
    ]) {
      expectStatus(await server.call("GET", `${pathOf("Proxy")}?${query}`), 400, "BadRequest");
    }
    expectStatus(
      await server.call("POST", `${pathOf("Proxy")}?fieldValidation=Loose`, {
        body: manifest("Proxy", "q", {}),
      }),
      400,
      "BadRequest",
    );
  });
});
