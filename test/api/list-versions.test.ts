import { afterEach, describe, expect, it } from "vitest";
import type { KindName } from "../../sdk/schema";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";

// resourceVersion on lists and gets, as kube-apiserver reads it: the current state, an exact version, a
// version not written yet (504), and malformed combinations.

describe("resourceVersion on lists and gets", () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.close();
  });
  const create = async (kind: KindName, name: string) => {
    const reply = await server.call("POST", pathOf(kind), { body: manifest(kind, name, VALID_SPECS[kind]) });
    expect(reply.status, reply.text).toBe(201);
    return reply.body;
  };

  it("serves the current state for unset, 0, NotOlderThan and an older version without a match", async () => {
    server = await startTestServer();
    await create("Proxy", "a");
    const current = (await server.call("GET", pathOf("Proxy"))).body.metadata.resourceVersion;
    for (const query of [
      "resourceVersion=0",
      "resourceVersion=",
      `resourceVersion=${current}&resourceVersionMatch=NotOlderThan`,
      "resourceVersion=1",
    ]) {
      const reply = await server.call("GET", `${pathOf("Proxy")}?${query}`);
      expect(reply.status, `${query}: ${reply.text}`).toBe(200);
      expect(reply.body.metadata.resourceVersion).toBe(current);
      expect(reply.body.items).toHaveLength(1);
    }
    expect((await server.call("GET", `${pathOf("Proxy", "a")}?resourceVersion=0`)).status).toBe(200);
  });

  it("answers 504 Too large resource version for a version not written yet", async () => {
    server = await startTestServer();
    const reply = await server.call(
      "GET",
      `${pathOf("Proxy")}?resourceVersion=99&resourceVersionMatch=NotOlderThan`,
    );
    expect(reply.status).toBe(504);
    expect(reply.body).toMatchObject({ reason: "Timeout", details: { retryAfterSeconds: 1 } });
    expect(reply.body.message).toBe("Too large resource version: 99, current: 0");
  });

  it("serves Exact at the current version, and at an older one nothing of the kind changed since", async () => {
    server = await startTestServer();
    await create("Proxy", "a");
    const atA = (await server.call("GET", pathOf("Proxy"))).body.metadata.resourceVersion;
    await create("ServiceRevision", "r");
    const exact = await server.call(
      "GET",
      `${pathOf("Proxy")}?resourceVersion=${atA}&resourceVersionMatch=Exact`,
    );
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body.metadata.resourceVersion).toBe(atA);
    expect(exact.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(["a"]);
    // A get at the version: served while that object has not changed since.
    expect(
      (await server.call("GET", `${pathOf("Proxy", "a")}?resourceVersion=${atA}&resourceVersionMatch=Exact`))
        .status,
    ).toBe(200);

    await create("Proxy", "b");
    const stale = await server.call(
      "GET",
      `${pathOf("Proxy")}?resourceVersion=${atA}&resourceVersionMatch=Exact`,
    );
    expect(stale.status).toBe(410);
    expect(stale.body).toMatchObject({ kind: "Status", reason: "Expired", code: 410 });
    // A version with a limit and no match is Exact too (Kubernetes' paging rule).
    expect((await server.call("GET", `${pathOf("Proxy")}?resourceVersion=${atA}&limit=1`)).status).toBe(410);
  });

  it("refuses malformed combinations with 400 naming the parameter", async () => {
    server = await startTestServer();
    for (const [query, parameter] of [
      ["resourceVersionMatch=Exact", "resourceVersionMatch"],
      ["resourceVersion=0&resourceVersionMatch=Exact", "resourceVersionMatch"],
      ["resourceVersion=1&resourceVersionMatch=Newest", "resourceVersionMatch"],
      ["resourceVersion=1&continue=abc", "resourceVersion"],
      ["resourceVersion=-1", "resourceVersion"],
    ]) {
      const reply = await server.call("GET", `${pathOf("Proxy")}?${query}`);
      expect(reply.status, `${query}: ${reply.text}`).toBe(400);
      expect(reply.body.message).toContain(parameter);
    }
    const get = await server.call("GET", `${pathOf("Proxy", "a")}?resourceVersionMatch=Exact`);
    expect(get.status).toBe(400);
    expect((await server.call("GET", `${pathOf("Proxy", "a")}?pretty=true`)).status).toBe(400);
  });
});
