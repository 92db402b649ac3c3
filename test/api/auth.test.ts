import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerMatches } from "../../server/http/auth";
import { call, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const TOKEN = "s3cret-api-token";

describe("with --token", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ token: TOKEN });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("serves requests that carry the bearer token", async () => {
    expect((await server.call("GET", pathOf("Proxy"))).status).toBe(200);
    expect(
      (await server.call("GET", pathOf("Proxy"), { headers: { authorization: `bearer ${TOKEN}` } })).status,
    ).toBe(200);
  });

  it.each([
    ["no Authorization header", undefined],
    ["an empty header", ""],
    ["another token of the same length", `Bearer ${"x".repeat(TOKEN.length)}`],
    ["a prefix of the token", `Bearer ${TOKEN.slice(0, 5)}`],
    ["the token with a suffix", `Bearer ${TOKEN}x`],
    ["another scheme", `Basic ${TOKEN}`],
    ["the bare token", TOKEN],
  ])("answers %s with a 401 Status", async (_case, authorization) => {
    // The bare `call` sends no default Authorization header.
    const reply = await call(server.url, "GET", pathOf("Proxy"), {
      headers: authorization === undefined ? {} : { authorization },
    });
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    expect(reply.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(reply.text).not.toContain(TOKEN);
  });

  it("checks the token before anything else: writes, unknown paths and wrong methods all get 401", async () => {
    const denied = { headers: { authorization: "Bearer wrong" } };
    expect(
      (await server.call("POST", pathOf("Proxy"), { ...denied, body: manifest("Proxy", "p", {}) })).status,
    ).toBe(401);
    expect((await server.call("GET", "/no/such/path", denied)).status).toBe(401);
    expect((await server.call("PUT", pathOf("Proxy"), denied)).status).toBe(401);
    expect((await server.call("GET", `${pathOf("Proxy", "p")}/status`, denied)).status).toBe(401);
    expect(
      (
        await server.call("PATCH", `${pathOf("Proxy", "p")}/status`, {
          ...denied,
          body: { status: {} },
          contentType: "application/merge-patch+json",
        })
      ).status,
    ).toBe(401);
    expect(server.store.get("Proxy", "p")).toBeUndefined();
  });

  it("lets /healthz through without a token", async () => {
    const reply = await call(server.url, "GET", "/healthz");
    expect(reply.status).toBe(200);
    expect(reply.text).toBe("ok");
  });
});

describe("bearer token comparison", () => {
  const expected = createHash("sha256").update(TOKEN).digest();

  it("accepts exactly the token, whatever the case of the scheme", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, expected)).toBe(true);
    expect(bearerMatches(`BEARER ${TOKEN}`, expected)).toBe(true);
  });

  it("rejects longer, empty and absent tokens", () => {
    expect(bearerMatches(`Bearer ${TOKEN}${TOKEN}`, expected)).toBe(false);
    expect(bearerMatches("Bearer ", expected)).toBe(false);
    expect(bearerMatches(undefined, expected)).toBe(false);
  });
});

describe("without --token", () => {
  it("serves every request", async () => {
    const server = await startTestServer();
    try {
      expect((await server.call("GET", pathOf("Proxy"))).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
