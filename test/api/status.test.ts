import { describe, expect, it } from "vitest";
import { KINDS } from "../../sdk/schema";
import { type Json, manifest, pathOf, type TestServer, warningsOf } from "../helpers/server";
import { openWatch } from "../helpers/watch";
import { VALID_SPECS } from "./fixtures";
import { APPLY, entryOf, JSON_PATCH, MERGE, statusOf, statusServer } from "./status-fixtures";

const { apiVersion } = KINDS.Proxy;

/**
 * The status subresource (`…/<name>/status`), as kube-apiserver serves it for a CRD with
 * `subresources: {status: {}}` (apiextensions-apiserver's status_strategy.go): a write there stores only the
 * status; a write to the object itself ignores the status.
 */
describe("the status subresource", () => {
  let server: TestServer;
  const { fresh, create } = statusServer((started) => {
    server = started;
  });

  it("GET answers the object, as a Table when asked, and 404 for a missing one", async () => {
    const name = fresh("get");
    const created = await create(name);
    const got = await server.call("GET", statusOf(name));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);
    const table = await server.call("GET", statusOf(name), {
      headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    expect(table.body).toMatchObject({
      kind: "Table",
      rows: [{ cells: [name, "cloud", expect.any(String), expect.any(String)] }],
    });
    const missing = await server.call("GET", statusOf(`${name}-missing`));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: "NotFound", details: { name: `${name}-missing` } });
  });

  it("a merge patch stores only the status: spec, labels and generation stay, the resourceVersion moves", async () => {
    const name = fresh("merge");
    const created = await create(name);
    const reply = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator`, {
      contentType: MERGE,
      body: {
        metadata: { labels: { step: "two" }, annotations: { a: "b" } },
        spec: { provider: "aws" },
        status: { phase: "Ready", observedGeneration: 1 },
      },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.status).toEqual({ phase: "Ready", observedGeneration: 1 });
    expect(reply.body.spec).toEqual(created.spec);
    expect(reply.body.metadata.labels).toEqual({ team: "edge" });
    expect(reply.body.metadata.annotations).toBeUndefined();
    expect(reply.body.metadata.generation).toBe(1);
    expect(Number(reply.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
    expect(server.store.get("Proxy", name)).toEqual(reply.body);
    // As kube-apiserver (1.36 on) records it: the status fields alone (its status strategy resets metadata
    // and spec in managedFields), under the request's manager with subresource "status".
    expect(entryOf(reply.body, "operator", "status")).toEqual({
      manager: "operator",
      operation: "Update",
      apiVersion,
      time: expect.any(String),
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:status": { ".": {}, "f:observedGeneration": {}, "f:phase": {} },
      },
      subresource: "status",
    });
    // The creator's entry is untouched.
    expect(entryOf(reply.body, "node-fetch") ?? reply.body.metadata.managedFields[0]).toMatchObject({
      operation: "Update",
    });
  });

  it("PUT replaces the status whole, needs a resourceVersion, and a stale one is 409", async () => {
    const name = fresh("put");
    await create(name);
    const first = await server.call("PATCH", statusOf(name), {
      contentType: MERGE,
      body: { status: { phase: "Ready", extra: { nested: true } } },
    });
    const current = first.body;
    const put = await server.call("PUT", statusOf(name), {
      body: { ...current, spec: { provider: "aws" }, status: { phase: "Draining" } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.status).toEqual({ phase: "Draining" });
    expect(put.body.spec.provider).toBe("cloud");
    expect(put.body.metadata.generation).toBe(1);

    const stale = await server.call("PUT", statusOf(name), {
      body: { ...current, status: { phase: "Old" } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      reason: "Conflict",
      message: `Operation cannot be fulfilled on proxies.core.example.dev "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    });
    const { resourceVersion: _rv, ...metadata } = put.body.metadata;
    const without = await server.call("PUT", statusOf(name), { body: { ...put.body, metadata } });
    expect(without.status).toBe(422);
    expect(without.body.details.causes[0].field).toBe("metadata.resourceVersion");
    const stalePatch = await server.call("PATCH", statusOf(name), {
      contentType: MERGE,
      body: { metadata: { resourceVersion: current.metadata.resourceVersion }, status: { phase: "Old" } },
    });
    expect(stalePatch.status).toBe(409);
    // Without a status in the body, a PUT removes it.
    const { status: _status, ...bare } = put.body;
    const cleared = await server.call("PUT", statusOf(name), { body: bare });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty("status");
  });

  it("a uid that is not the object's is 409, a body naming another object 400, a missing object 404", async () => {
    const name = fresh("pre");
    await create(name);
    const uid = await server.call("PATCH", statusOf(name), {
      contentType: MERGE,
      body: { metadata: { uid: "00000000-0000-0000-0000-000000000000" }, status: { phase: "x" } },
    });
    expect(uid.status).toBe(409);
    expect(uid.body.message).toContain("Precondition failed: UID in precondition");
    const other = await server.call("PATCH", statusOf(name), {
      contentType: MERGE,
      body: { metadata: { name: "another" }, status: { phase: "x" } },
    });
    expect(other.status).toBe(400);
    for (const [method, type, body] of [
      ["PATCH", MERGE, { status: { phase: "x" } }],
      ["PATCH", APPLY, { apiVersion, kind: "Proxy", metadata: { name: "ghost" }, status: { phase: "x" } }],
      [
        "PUT",
        undefined,
        { ...manifest("Proxy", "ghost", {}), metadata: { name: "ghost", resourceVersion: "1" } },
      ],
    ] as const) {
      const missing = await server.call(method, `${statusOf("ghost")}?fieldManager=m`, {
        contentType: type,
        body,
      });
      expect(missing.status, `${method} ${type}`).toBe(404);
    }
    expect(server.store.get("Proxy", "ghost")).toBeUndefined();
  });

  it("a JSON patch applies to the whole object and only its status is stored", async () => {
    const name = fresh("json");
    const created = await create(name);
    const reply = await server.call("PATCH", statusOf(name), {
      contentType: JSON_PATCH,
      body: [
        { op: "add", path: "/status", value: { phase: "Ready" } },
        { op: "replace", path: "/spec/provider", value: "aws" },
      ],
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.status).toEqual({ phase: "Ready" });
    expect(reply.body.spec).toEqual(created.spec);
  });

  it("refuses a strategic merge patch (415), as the object itself does", async () => {
    const name = fresh("smp");
    await create(name);
    for (const path of [statusOf(name), pathOf("Proxy", name)]) {
      const reply = await server.call("PATCH", path, {
        contentType: "application/strategic-merge-patch+json",
        body: { status: { phase: "x" } },
      });
      expect(reply.status, path).toBe(415);
    }
  });

  it("validates the status as the CRD's schema does: an object (422 otherwise); null removes it", async () => {
    const name = fresh("invalid");
    await create(name);
    await server.call("PATCH", statusOf(name), { contentType: MERGE, body: { status: { phase: "Ready" } } });
    const reply = await server.call("PATCH", statusOf(name), {
      contentType: MERGE,
      body: { status: "Ready" },
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      reason: "Invalid",
      details: { name, causes: [{ reason: "FieldValueTypeInvalid", field: "status" }] },
    });
    const list = await server.call("PATCH", statusOf(name), { contentType: MERGE, body: { status: [1] } });
    expect(list.status).toBe(422);
    const removed = await server.call("PATCH", statusOf(name), {
      contentType: MERGE,
      body: { status: null },
    });
    expect(removed.status).toBe(200);
    expect(removed.body).not.toHaveProperty("status");
  });

  it("names or refuses unknown fields per fieldValidation, although the write drops them", async () => {
    const name = fresh("fields");
    await create(name);
    const body = { extra: 1, spec: { colour: "blue" }, status: { phase: "Ready" } };
    const warned = await server.call("PATCH", statusOf(name), { contentType: MERGE, body });
    expect(warned.status).toBe(200);
    expect(warningsOf(warned).sort()).toEqual(
      ['299 - "unknown field \\"extra\\""', '299 - "unknown field \\"spec.colour\\""'].sort(),
    );
    const strict = await server.call("PATCH", `${statusOf(name)}?fieldValidation=Strict`, {
      contentType: MERGE,
      body,
    });
    expect(strict.status).toBe(422);
    expect(strict.body.details.causes.map((cause: Json) => cause.field).sort()).toEqual([
      "extra",
      "spec.colour",
    ]);
  });

  it("takes the main resource's query parameters and refuses others", async () => {
    const name = fresh("query");
    await create(name);
    const dry = await server.call("PATCH", `${statusOf(name)}?dryRun=All`, {
      contentType: MERGE,
      body: { status: { phase: "Dry" } },
    });
    expect(dry.status).toBe(200);
    expect(dry.body.status).toEqual({ phase: "Dry" });
    expect(server.store.get("Proxy", name)?.status).toBeUndefined();
    expect(dry.body.metadata.resourceVersion).toBe(server.store.get("Proxy", name)?.metadata.resourceVersion);
    const watchParam = await server.call("PUT", `${statusOf(name)}?watch=true`, { body: {} });
    expect(watchParam.status).toBe(400);
    const labelSelector = await server.call("GET", `${statusOf(name)}?labelSelector=a`);
    expect(labelSelector.status).toBe(400);
    const forced = await server.call("PATCH", `${statusOf(name)}?force=true`, {
      contentType: MERGE,
      body: { status: { phase: "x" } },
    });
    const forcedMain = await server.call("PATCH", `${pathOf("Proxy", name)}?force=true`, {
      contentType: MERGE,
      body: { metadata: { labels: { a: "b" } } },
    });
    expect(forced.status).toBe(forcedMain.status);
    expect(forced.status).toBeGreaterThanOrEqual(400);
  });

  it("answers 405 with Allow to methods the subresource does not serve", async () => {
    const name = fresh("method");
    await create(name);
    for (const method of ["POST", "DELETE"] as const) {
      const reply = await server.call(method, statusOf(name), { body: {} });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toMatch(/GET/);
      expect(reply.headers.allow).toMatch(/PATCH/);
      expect(reply.headers.allow).toMatch(/PUT/);
    }
    expect(server.store.get("Proxy", name)).toBeDefined();
  });

  it("a status write is a MODIFIED event on a watch", async () => {
    const name = fresh("watched");
    const created = await create(name);
    const watch = await openWatch(
      server.url,
      `${pathOf("Proxy")}?watch=true&resourceVersion=${created.metadata.resourceVersion}&fieldSelector=metadata.name=${name}`,
    );
    try {
      const written = await server.call("PATCH", statusOf(name), {
        contentType: MERGE,
        body: { status: { phase: "Ready" } },
      });
      const event = await watch.next();
      expect(event.type).toBe("MODIFIED");
      expect(event.object.status).toEqual({ phase: "Ready" });
      expect(event.object.metadata.resourceVersion).toBe(written.body.metadata.resourceVersion);
    } finally {
      watch.close();
    }
  });

  it("a Service's status written by a client is written again by the controller on its next sync", async () => {
    const name = fresh("svc");
    const created = await server.call("POST", pathOf("Service"), {
      body: manifest("Service", name, VALID_SPECS.Service),
    });
    expect(created.status, created.text).toBe(201);
    await server.idle();
    const settled = server.store.get("Service", name);
    expect(settled?.status?.latestRevision).toEqual(expect.any(String));
    const written = await server.call("PATCH", `/apis/compute.example.dev/v1alpha1/services/${name}/status`, {
      contentType: MERGE,
      body: { status: { latestRevision: "someone-else", note: "mine" } },
    });
    expect(written.status, written.text).toBe(200);
    expect(written.body.status).toMatchObject({ latestRevision: "someone-else", note: "mine" });
    // The status write is a MODIFIED event; the controller syncs the Service and writes the status it computes
    // from the spec and the revisions (level-triggered: what a client wrote there does not survive).
    await server.idle();
    const after = server.store.get("Service", name);
    expect(after?.status).toEqual(settled?.status);
    expect(after?.metadata.generation).toBe(settled?.metadata.generation);
  });
});
