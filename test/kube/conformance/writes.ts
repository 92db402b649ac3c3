import { expect } from "vitest";
import { type Json, manifest, pathOf } from "../../helpers/server";
import type { Backend } from "./backends";
import {
  APPLY,
  countedTest,
  create,
  failure,
  JSON_PATCH,
  MERGE,
  patch,
  proxies,
  statusOf,
  unique,
} from "./helpers";

/**
 * Create, get, replace and patch; the status a write ignores; dry runs; failures and their causes.
 * `backend()` is the server of the enclosing describe.
 */
export function writeTests(backend: () => Backend): void {
  const test = countedTest(backend);

  test("create 201, get 200, create again 409 AlreadyExists, get a missing one 404", async (server) => {
    const name = unique("crud");
    const created = await create(server, name);
    expect(created.metadata).toMatchObject({
      name,
      resourceVersion: expect.any(String),
      uid: expect.any(String),
    });
    const got = await server.call("GET", pathOf("Proxy", name));
    expect(got.status).toBe(200);
    expect(got.body.metadata.uid).toBe(created.metadata.uid);
    const again = await server.call("POST", proxies, { body: manifest("Proxy", name, {}) });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(
      failure({
        reason: "AlreadyExists",
        code: 409,
        message: `proxies.core.example.dev "${name}" already exists`,
        details: { name, group: "core.example.dev", kind: "proxies" },
      }),
    );
    const missing = await server.call("GET", pathOf("Proxy", `${name}-missing`));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(
      failure({
        reason: "NotFound",
        code: 404,
        message: `proxies.core.example.dev "${name}-missing" not found`,
        details: { name: `${name}-missing`, group: "core.example.dev", kind: "proxies" },
      }),
    );
  });

  test("replace 200, and 409 Conflict on a stale resourceVersion", async (server) => {
    const name = unique("replace");
    const created = await create(server, name);
    const replaced = await server.call("PUT", pathOf("Proxy", name), {
      body: { ...created, metadata: { ...created.metadata, labels: { step: "two" } } },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.metadata.labels).toEqual({ step: "two" });
    const stale = await server.call("PUT", pathOf("Proxy", name), {
      body: { ...created, metadata: { ...created.metadata, labels: { step: "three" } } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      reason: "Conflict",
      code: 409,
      message: `Operation cannot be fulfilled on proxies.core.example.dev "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    });
  });

  test("merge patch and JSON patch 200; a missing object 404", async (server) => {
    const name = unique("patch");
    await create(server, name);
    const merged = await patch(server, name, { metadata: { labels: { a: "1" } } });
    expect(merged.status, merged.text).toBe(200);
    const json = await patch(
      server,
      name,
      [{ op: "add", path: "/metadata/labels/b", value: "2" }],
      JSON_PATCH,
    );
    expect(json.status, json.text).toBe(200);
    expect(json.body.metadata.labels).toEqual({ a: "1", b: "2" });
    const missing = await patch(server, `${name}-missing`, { metadata: { labels: { a: "1" } } });
    expect(missing.status).toBe(404);
  });

  test("a write to the object ignores status: create, PUT, merge patch and apply", async (server) => {
    const name = unique("status-main");
    const created = await server.call("POST", proxies, {
      body: { ...manifest("Proxy", name, {}), status: { phase: "Hacked" } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).not.toHaveProperty("status");
    const written = await server.call("PATCH", statusOf(name), {
      body: { status: { phase: "Ready" } },
      contentType: MERGE,
    });
    const put = await server.call("PUT", pathOf("Proxy", name), {
      body: {
        ...written.body,
        metadata: { ...written.body.metadata, labels: { step: "put" } },
        status: { phase: "Hacked" },
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.metadata.labels).toEqual({ step: "put" });
    expect(put.body.status).toEqual({ phase: "Ready" });
    const merged = await patch(server, name, {
      metadata: { labels: { step: "merge" } },
      status: { phase: "Hacked" },
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.status).toEqual({ phase: "Ready" });
    const applied = await server.call("PATCH", `${pathOf("Proxy", name)}?fieldManager=main`, {
      body: { ...manifest("Proxy", name, {}, { labels: { by: "apply" } }), status: { phase: "Hacked" } },
      contentType: APPLY,
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toEqual({ phase: "Ready" });
    const main = applied.body.metadata.managedFields.find((entry: Json) => entry.manager === "main");
    expect(main.fieldsV1).not.toHaveProperty("f:status");
    expect((await server.call("GET", pathOf("Proxy", name))).body.status).toEqual({ phase: "Ready" });
  });

  test("422 Invalid names the field in causes[].field", async (server) => {
    const name = unique("invalid");
    const reply = await server.call("POST", proxies, { body: manifest("Proxy", name, { provider: 42 }) });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ kind: "Status", reason: "Invalid", code: 422 });
    expect(reply.body.details).toMatchObject({ name, group: "core.example.dev", kind: "Proxy" });
    const cause = reply.body.details.causes.find((each: Json) => each.field === "spec.provider");
    // The same words on both: kube-apiserver's admission webhook runs the local server's admission code.
    expect(cause?.message.startsWith("spec.provider: ")).toBe(true);
  });

  test("dryRun=All answers what would be stored and stores nothing", async (server) => {
    const name = unique("dry");
    const reply = await server.call("POST", `${proxies}?dryRun=All`, { body: manifest("Proxy", name, {}) });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.metadata.name).toBe(name);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });

  test("a failure without details (a 400) has no details field", async (server) => {
    const reply = await server.call("GET", `${proxies}?labelSelector=${encodeURIComponent("a in (")}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      failure({
        reason: "BadRequest",
        message: expect.any(String),
        code: 400,
      }),
    );
  });
}
