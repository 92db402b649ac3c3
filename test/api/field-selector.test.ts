import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KindName } from "../../sdk/schema";
import { parseFieldSelector } from "../../server/resources/field-selector";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { KINDS_UNDER_TEST, VALID_SPECS } from "./fixtures";

// fieldSelector on lists and delete-collection (watches: watch.test.ts): metadata.name with =, ==, != and
// commas, as for a Kubernetes custom resource; any other field is a 400 naming it and the supported ones.

describe("fieldSelector", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ proxyDeletionGraceMs: 60_000 });
  });
  afterEach(async () => {
    await server?.close();
  });

  const create = async (kind: KindName, name: string, labels?: Record<string, string>) => {
    const reply = await server.call("POST", pathOf(kind), {
      body: manifest(kind, name, VALID_SPECS[kind], labels ? { labels } : {}),
    });
    expect(reply.status, reply.text).toBe(201);
  };
  const names = async (kind: KindName, query: string) => {
    const reply = await server.call("GET", `${pathOf(kind)}?${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.body.items.map((item: { metadata: { name: string } }) => item.metadata.name);
  };
  const selector = (text: string) => `fieldSelector=${encodeURIComponent(text)}`;

  it.each(KINDS_UNDER_TEST)(
    "selects %ss by metadata.name with =, == and !=, terms joined by commas",
    async (kind) => {
      for (const name of ["a", "b", "c"]) await create(kind, name);
      const all = await names(kind, "");
      const others = all.filter((name: string) => !["a", "b", "c"].includes(name)); // revisions the controller minted
      expect(await names(kind, selector("metadata.name=b"))).toEqual(["b"]);
      expect(await names(kind, selector("metadata.name==b"))).toEqual(["b"]);
      expect(await names(kind, selector("metadata.name!=b"))).toEqual(
        all.filter((name: string) => name !== "b"),
      );
      expect(await names(kind, selector("metadata.name!=a,metadata.name!=c"))).toEqual(
        ["b", ...others].sort(),
      );
      expect(await names(kind, selector("metadata.name=a,metadata.name=b"))).toEqual([]);
      expect(await names(kind, selector("metadata.name=missing"))).toEqual([]);
      expect(await names(kind, selector(" metadata.name = c "))).toEqual(["c"]);
    },
  );

  it("combines with a labelSelector and pages", async () => {
    await create("Proxy", "a", { team: "edge" });
    await create("Proxy", "b", { team: "edge" });
    await create("Proxy", "c", { team: "core" });
    expect(await names("Proxy", `${selector("metadata.name!=a")}&labelSelector=team%3Dedge`)).toEqual(["b"]);
    expect(await names("Proxy", `${selector("metadata.name=c")}&labelSelector=team%3Dedge`)).toEqual([]);
    const first = await server.call("GET", `${pathOf("Proxy")}?${selector("metadata.name!=b")}&limit=1`);
    expect(first.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(["a"]);
    const token = encodeURIComponent(first.body.metadata.continue);
    expect(await names("Proxy", `${selector("metadata.name!=b")}&limit=1&continue=${token}`)).toEqual(["c"]);
    const pinned = await server.call(
      "GET",
      `${pathOf("Proxy")}?${selector("metadata.name=a")}&limit=1&continue=${token}`,
    );
    expect(pinned.body.items).toEqual([]);
  });

  it("takes metadata.namespace, always empty for these cluster-scoped kinds", async () => {
    await create("Proxy", "a");
    expect(await names("Proxy", selector("metadata.namespace="))).toEqual(["a"]);
    expect(await names("Proxy", selector("metadata.namespace=default"))).toEqual([]);
  });

  it("deletes only the selected objects from a collection", async () => {
    for (const name of ["a", "b", "c"]) await create("ServiceRevision", name);
    const reply = await server.call("DELETE", `${pathOf("ServiceRevision")}?${selector("metadata.name=b")}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(["b"]);
    expect(await names("ServiceRevision", "")).toEqual(["a", "c"]);
    const rest = await server.call("DELETE", `${pathOf("ServiceRevision")}?${selector("metadata.name!=a")}`);
    expect(rest.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(["c"]);
    expect(await names("ServiceRevision", "")).toEqual(["a"]);
  });

  describe("refuses with 400, naming the parameter", () => {
    const cases: [string, RegExp][] = [
      [
        "spec.provider=cloud",
        /^fieldSelector: field label not supported: spec.provider; the supported fields are metadata.name, metadata.namespace$/,
      ],
      ["status.phase!=x", /field label not supported: status.phase/],
      ["metadata.name=a,metadata.uid=x", /field label not supported: metadata.uid/],
      ["metadata.name", /^fieldSelector: invalid selector: 'metadata.name'/],
      ["=a", /field label not supported: '' in '=a'/],
    ];
    it.each(cases)("%s", async (text, message) => {
      await create("Proxy", "a");
      for (const method of ["GET", "DELETE"] as const) {
        const reply = await server.call(method, `${pathOf("Proxy")}?${selector(text)}`);
        expect(reply.status, reply.text).toBe(400);
        expect(reply.body).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
        expect(reply.body.message).toMatch(message);
      }
      expect(await names("Proxy", "")).toEqual(["a"]);
    });
  });
});

describe("parseFieldSelector", () => {
  it("reads escaped values and every operator", () => {
    expect(parseFieldSelector("metadata.name=a\\,b")).toEqual([
      { field: "metadata.name", equal: true, value: "a,b" },
    ]);
    expect(parseFieldSelector("metadata.name!=x,metadata.name==y")).toEqual([
      { field: "metadata.name", equal: false, value: "x" },
      { field: "metadata.name", equal: true, value: "y" },
    ]);
    expect(parseFieldSelector("")).toEqual([]);
    expect(parseFieldSelector(undefined)).toEqual([]);
    expect(() => parseFieldSelector("metadata.name=a=b")).toThrow(/unescaped '='/);
    expect(() => parseFieldSelector("metadata.name=a\\x")).toThrow(/may only escape/);
  });
});
