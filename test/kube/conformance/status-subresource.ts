import { expect } from "vitest";
import { type Json, manifest, pathOf } from "../../helpers/server";
import type { Backend } from "./backends";
import { APPLY, countedTest, create, failure, MERGE, statusOf, unique } from "./helpers";

/**
 * The status subresource: GET, merge patch, PUT and apply of the status alone.
 * `backend()` is the server of the enclosing describe.
 */
export function statusSubresourceTests(backend: () => Backend): void {
  const test = countedTest(backend);

  /** The managedFields entry of a manager's writes to the status subresource, fields and all. */
  const statusEntry = (object: Json, manager: string, operation: string) =>
    object.metadata.managedFields.find(
      (entry: Json) =>
        entry.manager === manager && entry.operation === operation && entry.subresource === "status",
    );

  test("status subresource: GET answers the object; a missing object is 404 on GET, PATCH and PUT", async (server) => {
    const name = unique("status-get");
    const created = await create(server, name);
    const got = await server.call("GET", statusOf(name));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);
    const missing = `${name}-missing`;
    const notFound = failure({
      reason: "NotFound",
      code: 404,
      message: `proxies.core.example.dev "${missing}" not found`,
      details: { name: missing, group: "core.example.dev", kind: "proxies" },
    });
    expect((await server.call("GET", statusOf(missing))).body).toEqual(notFound);
    const patched = await server.call("PATCH", statusOf(missing), {
      body: { status: { phase: "Ready" } },
      contentType: MERGE,
    });
    expect(patched.body).toEqual(notFound);
    const put = await server.call("PUT", statusOf(missing), {
      body: { ...manifest("Proxy", missing, {}), metadata: { name: missing, resourceVersion: "1" } },
    });
    expect(put.status).toBe(404);
    // An apply to the status subresource never creates the object.
    const applied = await server.call("PATCH", `${statusOf(missing)}?fieldManager=operator`, {
      body: { ...manifest("Proxy", missing, {}), status: { phase: "Ready" } },
      contentType: APPLY,
    });
    expect(applied.status).toBe(404);
    expect((await server.call("GET", pathOf("Proxy", missing))).status).toBe(404);
  });

  test("status subresource: a merge patch stores only the status; generation stays, resourceVersion moves", async (server) => {
    const name = unique("status-merge");
    const created = await create(server, name, { team: "edge" });
    const reply = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator`, {
      body: {
        metadata: { labels: { step: "two" } },
        spec: { provider: "aws" },
        status: { phase: "Ready", nested: { ready: true } },
      },
      contentType: MERGE,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.status).toEqual({ phase: "Ready", nested: { ready: true } });
    expect(reply.body.spec).toEqual(created.spec);
    expect(reply.body.metadata.labels).toEqual({ team: "edge" });
    expect(reply.body.metadata.generation).toBe(created.metadata.generation);
    expect(reply.body.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    // kube-apiserver's status strategy resets metadata and spec in managedFields (from 1.36 on; 1.35 reset
    // only spec, and recorded the labels sent, though it never stored them): the entry holds the status.
    const resetsMetadata = Number((await server.call("GET", "/version")).body.minor) >= 36;
    expect(statusEntry(reply.body, "operator", "Update")).toEqual({
      manager: "operator",
      operation: "Update",
      apiVersion: "core.example.dev/v1alpha2",
      time: expect.any(String),
      fieldsType: "FieldsV1",
      fieldsV1: {
        ...(!resetsMetadata && { "f:metadata": { "f:labels": { "f:step": {} } } }),
        "f:status": { ".": {}, "f:nested": { ".": {}, "f:ready": {} }, "f:phase": {} },
      },
      subresource: "status",
    });
    const got = await server.call("GET", pathOf("Proxy", name));
    expect(got.body).toEqual(reply.body);
  });

  test("status subresource: PUT replaces the status whole; a stale resourceVersion is 409", async (server) => {
    const name = unique("status-put");
    const created = await create(server, name);
    const first = await server.call("PUT", statusOf(name), {
      body: { ...created, spec: { provider: "aws" }, status: { phase: "Ready", extra: 1 } },
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.status).toEqual({ phase: "Ready", extra: 1 });
    expect(first.body.spec).toEqual(created.spec);
    const second = await server.call("PUT", statusOf(name), {
      body: { ...first.body, status: { phase: "Done" } },
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body.status).toEqual({ phase: "Done" });
    expect(second.body.metadata.generation).toBe(created.metadata.generation);
    const stale = await server.call("PUT", statusOf(name), {
      body: { ...first.body, status: { phase: "Old" } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(
      failure({
        reason: "Conflict",
        code: 409,
        message: `Operation cannot be fulfilled on proxies.core.example.dev "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        details: { name, group: "core.example.dev", kind: "proxies" },
      }),
    );
    const stalePatch = await server.call("PATCH", statusOf(name), {
      body: { metadata: { resourceVersion: created.metadata.resourceVersion }, status: { phase: "Old" } },
      contentType: MERGE,
    });
    expect(stalePatch.status).toBe(409);
    // A dry run answers the status it would store, at the stored version, and stores nothing.
    const dry = await server.call("PATCH", `${statusOf(name)}?dryRun=All`, {
      body: { status: { phase: "Dry" } },
      contentType: MERGE,
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.status).toEqual({ phase: "Dry" });
    expect(dry.body.metadata.resourceVersion).toBe(second.body.metadata.resourceVersion);
    expect((await server.call("GET", pathOf("Proxy", name))).body.status).toEqual({ phase: "Done" });
  });

  test("status subresource: apply merges the status, ignores spec and labels, records an Apply entry", async (server) => {
    const name = unique("status-apply");
    const created = await create(server, name);
    const apply = (manager: string, status: Json, force = false) =>
      server.call("PATCH", `${statusOf(name)}?fieldManager=${manager}${force ? "&force=true" : ""}`, {
        body: {
          apiVersion: "core.example.dev/v1alpha2",
          kind: "Proxy",
          metadata: { name },
          spec: { provider: "aws" },
          status,
        },
        contentType: APPLY,
      });
    const first = await apply("alpha", { phase: "Ready" });
    expect(first.status, first.text).toBe(200);
    expect(first.body.status).toEqual({ phase: "Ready" });
    expect(first.body.spec).toEqual(created.spec);
    expect(first.body.metadata.generation).toBe(created.metadata.generation);
    expect(statusEntry(first.body, "alpha", "Apply")).toEqual({
      manager: "alpha",
      operation: "Apply",
      apiVersion: "core.example.dev/v1alpha2",
      time: expect.any(String),
      fieldsType: "FieldsV1",
      fieldsV1: { "f:status": { "f:phase": {} } },
      subresource: "status",
    });
    const conflict = await apply("beta", { phase: "Gone" });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      reason: "Conflict",
      message: 'Apply failed with 1 conflict: conflict with "alpha" with subresource "status": .status.phase',
      details: {
        causes: [
          {
            reason: "FieldManagerConflict",
            message: 'conflict with "alpha" with subresource "status"',
            field: ".status.phase",
          },
        ],
      },
    });
    const forced = await apply("beta", { phase: "Gone" }, true);
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.status).toEqual({ phase: "Gone" });
  });

  test("status subresource: a status that is not an object is 422 Invalid at field status", async (server) => {
    const name = unique("status-invalid");
    await create(server, name);
    const reply = await server.call("PATCH", statusOf(name), {
      body: { status: "Ready" },
      contentType: MERGE,
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      reason: "Invalid",
      code: 422,
      details: { name, group: "core.example.dev", kind: "Proxy" },
    });
    expect(reply.body.details.causes).toEqual([
      { reason: "FieldValueTypeInvalid", field: "status", message: expect.any(String) },
    ]);
  });
}
