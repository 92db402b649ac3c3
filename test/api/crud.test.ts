import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { KINDS_UNDER_TEST, SPEC_CHANGES, VALID_SPECS } from "./fixtures";

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";

describe.each(KINDS_UNDER_TEST)("the seven operations on %s", (kind: KindName) => {
  let server: TestServer;
  beforeAll(async () => {
    // The server as users run it: the controller drains Proxies (a Proxy's deletion is two-phase).
    server = await startTestServer({ drainProxies: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  const create = async (name: string, labels: Record<string, string> = {}) => {
    const reply = await server.call("POST", pathOf(kind), {
      body: manifest(kind, name, VALID_SPECS[kind], { labels }),
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  /** The current object once the controller is done with it, so its resourceVersion is stable. */
  const settled = async (name: string) => {
    await server.idle();
    return (await server.call("GET", pathOf(kind, name))).body;
  };

  it("creates with 201 and answers the stored object with server-set metadata and defaults", async () => {
    const created = await create("created");
    expect(created).toMatchObject({
      apiVersion: KINDS[kind].apiVersion,
      kind,
      metadata: { name: "created", generation: 1 },
    });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(created.spec).length).toBeGreaterThan(Object.keys(VALID_SPECS[kind]).length);
  });

  it("treats a uid in a PUT body as a precondition: another object under the name is 409, the same one is updated", async () => {
    const stale = await create("uid-guarded");
    expect((await server.call("DELETE", pathOf(kind, "uid-guarded"))).status).toBeLessThan(300);
    // A Proxy goes after its (test) grace period.
    while ((await server.call("GET", pathOf(kind, "uid-guarded"))).status !== 404) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await create("uid-guarded");
    const current = await settled("uid-guarded");
    const body = { ...current, metadata: { ...current.metadata, uid: stale.metadata.uid } };
    const refused = await server.call("PUT", pathOf(kind, "uid-guarded"), { body });
    expect(refused.status).toBe(409);
    expect(refused.body.reason).toBe("Conflict");
    expect(refused.body.message).toContain(
      `Precondition failed: UID in precondition: ${stale.metadata.uid}, UID in object meta: ${current.metadata.uid}`,
    );
    const accepted = await server.call("PUT", pathOf(kind, "uid-guarded"), { body: current });
    expect(accepted.status).toBe(200);
  });

  it("gets an object by name with 200", async () => {
    const created = await create("fetched");
    const reply = await server.call("GET", pathOf(kind, "fetched"));
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.uid).toBe(created.metadata.uid);
    expect(reply.body.spec).toEqual(created.spec);
  });

  it("lists as a <Kind>List ordered by name, with the store's resourceVersion", async () => {
    await create("list-b", { suite: "list" });
    await create("list-a", { suite: "list" });
    const reply = await server.call("GET", `${pathOf(kind)}?labelSelector=suite%3Dlist`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ apiVersion: KINDS[kind].apiVersion, kind: `${kind}List` });
    expect(reply.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual([
      "list-a",
      "list-b",
    ]);
    expect(Number(reply.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(
      Number(reply.body.items[0].metadata.resourceVersion),
    );
  });

  it("replaces with PUT (200), keeping uid and creation time and taking the new labels", async () => {
    await create("replaced");
    const current = await settled("replaced");
    const spec = kind === "ServiceRevision" ? current.spec : { ...current.spec, ...SPEC_CHANGES[kind] };
    const reply = await server.call("PUT", pathOf(kind, "replaced"), {
      body: { ...current, metadata: { ...current.metadata, labels: { replaced: "yes" } }, spec },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.metadata).toMatchObject({
      uid: current.metadata.uid,
      creationTimestamp: current.metadata.creationTimestamp,
      labels: { replaced: "yes" },
      generation: kind === "ServiceRevision" ? current.metadata.generation : current.metadata.generation + 1,
    });
    expect(Number(reply.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(current.metadata.resourceVersion),
    );
  });

  it("updates with a merge patch (200)", async () => {
    await create("merged");
    const reply = await server.call("PATCH", pathOf(kind, "merged"), {
      body: { metadata: { labels: { patched: "merge" } } },
      contentType: MERGE,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.labels).toEqual({ patched: "merge" });
  });

  it("updates with a JSON patch (200)", async () => {
    await create("json-patched");
    const reply = await server.call("PATCH", pathOf(kind, "json-patched"), {
      body: [{ op: "add", path: "/metadata/annotations", value: { "example.dev/note": "json" } }],
      contentType: JSON_PATCH,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.annotations).toEqual({ "example.dev/note": "json" });
  });

  it("deletes by name, after which the object is gone", async () => {
    await create("deleted");
    const reply = await server.call("DELETE", pathOf(kind, "deleted"));
    if (kind === "Proxy") {
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ kind: "Proxy", metadata: { name: "deleted" } });
      expect(reply.body.metadata.deletionTimestamp).toBeDefined();
      await expect.poll(async () => (await server.call("GET", pathOf(kind, "deleted"))).status).toBe(404);
    } else {
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ kind: "Status", status: "Success", details: { name: "deleted" } });
      expect((await server.call("GET", pathOf(kind, "deleted"))).status).toBe(404);
    }
  });

  it("deletes the collection (200), honouring the label selector", async () => {
    await create("bulk-1", { bulk: "yes" });
    await create("bulk-2", { bulk: "yes" });
    await create("bulk-kept", { bulk: "no" });
    const reply = await server.call("DELETE", `${pathOf(kind)}?labelSelector=bulk%3Dyes`);
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe(`${kind}List`);
    expect(reply.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual([
      "bulk-1",
      "bulk-2",
    ]);
    const remaining = async () =>
      (await server.call("GET", `${pathOf(kind)}?labelSelector=bulk`)).body.items.map(
        (item: { metadata: { name: string } }) => item.metadata.name,
      );
    await expect.poll(remaining).toEqual(["bulk-kept"]);
  });
});
