import { expect } from "vitest";
import { type Json, manifest, pathOf } from "../../helpers/server";
import type { Backend } from "./backends";
import { countedTest, create, patch, proxies, unique } from "./helpers";

/**
 * Deletes: preconditions, the answers of a delete, finalizers and grace periods.
 * `backend()` is the server of the enclosing describe.
 */
export function deletionTests(backend: () => Backend): void {
  const test = countedTest(backend);

  test("DeleteOptions preconditions: a wrong uid or resourceVersion is 409, the right ones delete", async (server) => {
    const name = unique("preconditions");
    const created = await create(server, name);
    const { uid, resourceVersion } = created.metadata;
    const remove = (preconditions: Json) =>
      server.call("DELETE", pathOf("Proxy", name), {
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions, gracePeriodSeconds: 0 },
      });
    const wrongUid = await remove({ uid: "00000000-0000-0000-0000-000000000000" });
    expect(wrongUid.status).toBe(409);
    const conflict = `Operation cannot be fulfilled on Proxy.core.example.dev "${name}"`;
    expect(wrongUid.body).toMatchObject({
      reason: "Conflict",
      message: `${conflict}: the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
      details: { name, group: "core.example.dev", kind: "Proxy" },
    });
    const wrongVersion = await remove({ resourceVersion: "1" });
    expect(wrongVersion.status).toBe(409);
    expect(wrongVersion.body).toMatchObject({
      reason: "Conflict",
      message: `${conflict}: the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    });
    const removed = await remove({ uid, resourceVersion });
    expect(removed.status, removed.text).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });

  test("a delete that removes at once answers a Success Status", async (server) => {
    const name = unique("delete");
    const created = await create(server, name);
    const reply = await server.call("DELETE", `${pathOf("Proxy", name)}?gracePeriodSeconds=0`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Success",
      details: { name, group: "core.example.dev", kind: "proxies", uid: created.metadata.uid },
    });
  });

  test("a delete held by a finalizer answers 200 and the marked object; it goes when the finalizer is removed", async (server) => {
    const name = unique("finalized");
    const reply = await server.call("POST", proxies, {
      body: manifest("Proxy", name, {}, { finalizers: ["example.dev/conformance"] }),
    });
    expect(reply.status, reply.text).toBe(201);
    const path = `${pathOf("Proxy", name)}?gracePeriodSeconds=0`;
    const dryRun = await server.call("DELETE", `${path}&dryRun=All`);
    expect(dryRun.status, dryRun.text).toBe(200);
    expect(dryRun.body).toMatchObject({
      kind: "Proxy",
      metadata: { name, deletionTimestamp: expect.any(String) },
    });
    const marked = await server.call("DELETE", path);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body).toMatchObject({
      kind: "Proxy",
      metadata: { name, deletionTimestamp: expect.any(String) },
    });
    const again = await server.call("DELETE", path);
    expect(again.status, again.text).toBe(200);
    expect(again.body.metadata).toMatchObject({
      uid: marked.body.metadata.uid,
      deletionTimestamp: marked.body.metadata.deletionTimestamp,
    });
    expect((await patch(server, name, { metadata: { finalizers: null } })).status).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });

  test("a delete held by a finalizer answers 202 for the deprecated orphanDependents=false", async (server) => {
    const name = unique("orphan-false");
    const reply = await server.call("POST", proxies, {
      body: manifest("Proxy", name, {}, { finalizers: ["example.dev/conformance"] }),
    });
    expect(reply.status, reply.text).toBe(201);
    const marked = await server.call(
      "DELETE",
      `${pathOf("Proxy", name)}?gracePeriodSeconds=0&orphanDependents=false`,
    );
    expect(marked.status, marked.text).toBe(202);
    expect(marked.body).toMatchObject({
      kind: "Proxy",
      metadata: { name, deletionTimestamp: expect.any(String) },
    });
    const inBody = await server.call("DELETE", pathOf("Proxy", name), {
      body: { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, orphanDependents: false },
    });
    expect(inBody.status, inBody.text).toBe(202);
    expect((await patch(server, name, { metadata: { finalizers: null } })).status).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
    const other = unique("orphan-false");
    await create(server, other);
    const gone = await server.call(
      "DELETE",
      `${pathOf("Proxy", other)}?gracePeriodSeconds=0&orphanDependents=false`,
    );
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toMatchObject({ kind: "Status", status: "Success" });
  });

  test("a Proxy deleted with a grace period and no finalizer goes at once (the drain is a finalizer)", async (server) => {
    const name = unique("grace");
    await create(server, name);
    const reply = await server.call("DELETE", `${pathOf("Proxy", name)}?gracePeriodSeconds=30`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ kind: "Status", status: "Success" });
  });

  test("a Proxy a finalizer holds is marked with a grace of 0, whatever grace the delete asks", async (server) => {
    const name = unique("held");
    const made = await server.call("POST", proxies, {
      body: manifest("Proxy", name, {}, { finalizers: ["example.dev/hold"] }),
    });
    expect(made.status, made.text).toBe(201);
    const marked = await server.call("DELETE", `${pathOf("Proxy", name)}?gracePeriodSeconds=30`);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      deletionGracePeriodSeconds: 0,
      finalizers: ["example.dev/hold"],
    });
    const released = await patch(server, name, { metadata: { finalizers: null } });
    expect(released.status, released.text).toBe(200);
    await expect.poll(async () => (await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });
}
