import { afterEach, describe, expect, it } from "vitest";
import { KINDS } from "../../sdk/schema";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { SECRET_SPECS, SECRETS, VALID_SPECS } from "./fixtures";

// A list's answer is written from each stored object's cached JSON (server/resources/list-body.ts): it must
// say what a GET of each object says, redacted, and follow every write, however often the list is read.

describe("list answers from cached item text", () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.close();
  });

  const create = async (name: string, spec: unknown, metadata: Record<string, unknown> = {}) => {
    const reply = await server.call("POST", pathOf("Proxy"), {
      body: manifest("Proxy", name, spec, metadata),
    });
    expect(reply.status, reply.text).toBe(201);
  };
  const list = async (query = "") => {
    const reply = await server.call("GET", `${pathOf("Proxy")}${query}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    return reply;
  };
  const getText = async (name: string) => (await server.call("GET", pathOf("Proxy", name))).text;

  it("lists each object exactly as its GET shows it, secrets redacted, in one valid JSON document", async () => {
    server = await startTestServer();
    await create("a-plain", VALID_SPECS.Proxy, { labels: { tier: "edge" } });
    await create("b-secret", SECRET_SPECS.Proxy);
    const reply = await list();
    expect(reply.body).toMatchObject({
      apiVersion: KINDS.Proxy.apiVersion,
      kind: KINDS.Proxy.listKind,
      metadata: { resourceVersion: expect.any(String) },
    });
    expect(reply.body.items).toEqual([
      JSON.parse(await getText("a-plain")),
      JSON.parse(await getText("b-secret")),
    ]);
    expect(reply.text).toContain(`,"items":[${await getText("a-plain")},${await getText("b-secret")}]}`);
    for (const secret of Object.values(SECRETS)) expect(reply.text).not.toContain(secret);
  });

  it("follows every write: a list read again and again shows the latest version of each object", async () => {
    server = await startTestServer();
    await create("changing", VALID_SPECS.Proxy);
    for (let step = 1; step <= 3; step++) {
      await list();
      const patched = await server.call("PATCH", pathOf("Proxy", "changing"), {
        body: { metadata: { labels: { step: String(step) } } },
        contentType: "application/merge-patch+json",
      });
      expect(patched.status, patched.text).toBe(200);
      const [item] = (await list()).body.items;
      expect(item.metadata.labels).toEqual({ step: String(step) });
      expect(item.metadata.resourceVersion).toBe(patched.body.metadata.resourceVersion);
    }
    const deleted = await server.call("DELETE", `${pathOf("Proxy", "changing")}?gracePeriodSeconds=0`);
    expect(deleted.status).toBe(200);
    expect((await list()).body.items).toEqual([]);
  });

  it("pages carry continue and remainingItemCount in the envelope, items unchanged", async () => {
    server = await startTestServer();
    for (const name of ["p1", "p2", "p3"]) await create(name, VALID_SPECS.Proxy);
    const first = await list("?limit=2");
    expect(first.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual([
      "p1",
      "p2",
    ]);
    expect(first.body.metadata).toMatchObject({ continue: expect.any(String), remainingItemCount: 1 });
    const rest = await list(`?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(rest.body.items).toEqual([JSON.parse(await getText("p3"))]);
    expect(rest.body.metadata.continue).toBeUndefined();
  });
});
