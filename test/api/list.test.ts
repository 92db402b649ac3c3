import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const names = (reply: { body: { items: { metadata: { name: string } }[] } }) =>
  reply.body.items.map((item) => item.metadata.name);

describe("listing", () => {
  let server: TestServer;
  const list = (query: string) => server.call("GET", `${pathOf("Proxy")}?${query}`);

  beforeAll(async () => {
    server = await startTestServer();
    const proxies: [string, Record<string, string>][] = [
      ["edge-a", { tier: "edge", env: "prod" }],
      ["edge-b", { tier: "edge", env: "dev" }],
      ["core-a", { tier: "core", env: "prod", "example.dev/legacy": "true" }],
      ["core-b", { tier: "core" }],
      ["plain", {}],
    ];
    for (const [name, labels] of proxies) {
      await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", name, {}, { labels }) });
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  it("returns every object ordered by name without a selector", async () => {
    expect(names(await list(""))).toEqual(["core-a", "core-b", "edge-a", "edge-b", "plain"]);
  });

  it.each([
    ["tier=edge", ["edge-a", "edge-b"]],
    ["tier==edge", ["edge-a", "edge-b"]],
    ["tier!=edge", ["core-a", "core-b", "plain"]],
    ["tier=edge,env=prod", ["edge-a"]],
    ["env in (prod, dev)", ["core-a", "edge-a", "edge-b"]],
    ["env notin (prod)", ["core-b", "edge-b", "plain"]],
    ["env", ["core-a", "edge-a", "edge-b"]],
    ["!env", ["core-b", "plain"]],
    ["example.dev/legacy", ["core-a"]],
    ["tier in (core),!env", ["core-b"]],
    ["", ["core-a", "core-b", "edge-a", "edge-b", "plain"]],
  ])("selects with labelSelector %j", async (selector, expected) => {
    expect(names(await list(`labelSelector=${encodeURIComponent(selector)}`))).toEqual(expected);
  });

  it("pages with limit and an opaque continue token until the last page", async () => {
    const first = await list("limit=2");
    expect(names(first)).toEqual(["core-a", "core-b"]);
    expect(first.body.metadata).toMatchObject({ continue: expect.any(String), remainingItemCount: 3 });

    const second = await list(`limit=2&continue=${first.body.metadata.continue}`);
    expect(names(second)).toEqual(["edge-a", "edge-b"]);

    const last = await list(`limit=2&continue=${second.body.metadata.continue}`);
    expect(names(last)).toEqual(["plain"]);
    expect(last.body.metadata.continue).toBeUndefined();
  });

  it("pages within a selector", async () => {
    const first = await list("labelSelector=tier&limit=3");
    expect(names(first)).toEqual(["core-a", "core-b", "edge-a"]);
    const rest = await list(`labelSelector=tier&limit=3&continue=${first.body.metadata.continue}`);
    expect(names(rest)).toEqual(["edge-b"]);
  });

  it("continues after the last name returned even when objects were created meanwhile", async () => {
    const first = await list("limit=2");
    await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "aaa-new", {}) });
    const second = await list(`limit=10&continue=${first.body.metadata.continue}`);
    expect(names(second)).toEqual(["edge-a", "edge-b", "plain"]);
    await server.call("DELETE", pathOf("Proxy", "aaa-new"));
  });

  it("reports a resourceVersion that grows with every write", async () => {
    const before = Number((await list("")).body.metadata.resourceVersion);
    await server.call("PATCH", pathOf("Proxy", "plain"), {
      body: { metadata: { annotations: { touched: "yes" } } },
      contentType: "application/merge-patch+json",
    });
    expect(Number((await list("")).body.metadata.resourceVersion)).toBeGreaterThan(before);
  });

  it("treats limit=0 as no limit", async () => {
    const reply = await list("limit=0&labelSelector=tier");
    expect(names(reply)).toHaveLength(4);
    expect(reply.body.metadata.continue).toBeUndefined();
  });
});
