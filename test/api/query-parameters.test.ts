import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  OPERATIONS,
  type Operation,
  type ParameterName,
  parametersOf,
  QUERY_PARAMETERS,
} from "../../server/http/query";
import {
  type CallOptions,
  type Method,
  manifest,
  pathOf,
  startTestServer,
  type TestServer,
} from "../helpers/server";

/** A request of each operation of the table, as a client sends it (the query comes after `?`). */
const REQUESTS: Record<Operation, { method: Method; url: string; options?: CallOptions }> = {
  list: { method: "GET", url: `${pathOf("Proxy")}?` },
  watch: { method: "GET", url: `${pathOf("Proxy")}?watch=true&` },
  get: { method: "GET", url: `${pathOf("Proxy", "kept")}?` },
  create: { method: "POST", url: `${pathOf("Proxy")}?`, options: { body: manifest("Proxy", "new", {}) } },
  replace: {
    method: "PUT",
    url: `${pathOf("Proxy", "kept")}?`,
    options: { body: manifest("Proxy", "kept", {}) },
  },
  patch: {
    method: "PATCH",
    url: `${pathOf("Proxy", "kept")}?`,
    options: { body: { metadata: { labels: { x: "y" } } }, contentType: "application/merge-patch+json" },
  },
  apply: {
    method: "PATCH",
    url: `${pathOf("Proxy", "kept")}?fieldManager=t&`,
    options: { body: manifest("Proxy", "kept", {}), contentType: "application/apply-patch+yaml" },
  },
  delete: { method: "DELETE", url: `${pathOf("Proxy", "kept")}?` },
  deletecollection: { method: "DELETE", url: `${pathOf("Proxy")}?` },
};

const NAMES = Object.keys(QUERY_PARAMETERS) as ParameterName[];

// Every route reads its query with the table: what an operation does not take, or takes once, is refused
// before anything happens, whichever route and body the operation has.
describe("each route refuses the query parameters its operation does not take", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "kept", {}) })).status).toBe(
      201,
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(OPERATIONS)("%s", async (operation) => {
    const { method, url, options } = REQUESTS[operation];
    const unknown = NAMES.filter((name) => !parametersOf(operation).includes(name));
    const repeated = parametersOf(operation).filter((name) => !("repeatable" in QUERY_PARAMETERS[name]));
    const cases = [
      ...[...unknown, "notAParameter"].map((name) => [name, `${name}=1`] as const),
      ...repeated.map((name) => [name, `${name}=1&${name}=1`] as const),
    ];
    for (const [name, query] of cases) {
      const reply = await server.call(method, `${url}${query}`, options);
      expect(reply.status, `${operation} ${query}: ${reply.text}`).toBe(400);
      expect(reply.body).toMatchObject({ kind: "Status", reason: "BadRequest" });
      expect(reply.body.message).toContain(name);
    }
    expect((await server.call("GET", pathOf("Proxy", "kept"))).status).toBe(200);
  });
});
