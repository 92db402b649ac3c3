import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  configureProvider,
  created,
  declared,
  type LoopbackProxy,
  type ProxyHandler,
  providerOf,
  rejection,
  startLoopbackProxy,
  statusBody,
} from "../helpers/provider";
import { startTestServer, type TestServer } from "../helpers/server";
import { SECRETS } from "./fixtures";

const TOKEN = SECRETS.token;

describe("provider settings", () => {
  let server: TestServer;
  let proxy: LoopbackProxy | undefined;

  beforeAll(async () => {
    server = await startTestServer({ logLevel: "warn", token: TOKEN });
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Settings are read at the first API call, not at configure: a preview that calls no API needs none. */
  async function firstCallError(config: Record<string, string>): Promise<Error> {
    await configureProvider(config);
    return rejection(created("Proxy", declared("edge", {})));
  }

  async function through(handler: ProxyHandler): Promise<LoopbackProxy> {
    proxy = await startLoopbackProxy(server.url, handler);
    return proxy;
  }

  it("checks a spec without an API address: preview of a stack needs none", async () => {
    vi.stubEnv("EXAMPLEDEV_BASE_URL", "");
    await configureProvider({});
    const result = await providerOf("Proxy").check({}, declared("edge", {}));
    expect(result.failures).toEqual([]);
  });

  it("leaves spec errors to the policy pack when exampledev:deferValidationToPolicies is true", async () => {
    const invalid = { shutdown: { drainTimeout: "90s", minimumDrainTime: "10s" } };
    await configureProvider({});
    expect((await providerOf("Proxy").check({}, declared("edge", invalid))).failures).toHaveLength(1);

    await configureProvider({ "exampledev:deferValidationToPolicies": "true" });
    const deferred = await providerOf("Proxy").check({}, declared("edge", invalid));
    expect(deferred.failures).toEqual([]);
    expect(deferred.inputs.spec).toMatchObject({ provider: "cloud", shutdown: invalid.shutdown });

    await configureProvider({ "exampledev:deferValidationToPolicies": "yes" });
    const error = await rejection(providerOf("Proxy").check({}, declared("edge", invalid)));
    expect(error.message).toContain("exampledev:deferValidationToPolicies must be true or false");
  });

  it("refuses to call the API without an address, naming the config key and the environment variable", async () => {
    vi.stubEnv("EXAMPLEDEV_BASE_URL", "");
    const error = await firstCallError({ "exampledev:token": TOKEN });
    expect(error.message).toContain("exampledev:baseUrl");
    expect(error.message).toContain("EXAMPLEDEV_BASE_URL");
    expect(error.message).not.toContain(TOKEN);
  });

  it("falls back to EXAMPLEDEV_BASE_URL and EXAMPLEDEV_TOKEN when the stack config has neither", async () => {
    vi.stubEnv("EXAMPLEDEV_BASE_URL", server.url);
    vi.stubEnv("EXAMPLEDEV_TOKEN", TOKEN);
    await configureProvider({});
    const { outs } = await created("Proxy", declared("from-env", {}));
    expect(server.store.get("Proxy", outs.metadata.name)).toBeDefined();
  });

  it("prefers EXAMPLEDEV_BASE_URL and EXAMPLEDEV_TOKEN to the stack config, so a destroy can reach a moved API", async () => {
    // Port 1 on loopback: nothing listens there. The engine hands destroy the config stored in state.
    vi.stubEnv("EXAMPLEDEV_BASE_URL", server.url);
    vi.stubEnv("EXAMPLEDEV_TOKEN", TOKEN);
    await configureProvider({
      "exampledev:baseUrl": "http://127.0.0.1:1",
      "exampledev:token": "stale-token",
    });
    const { outs } = await created("Proxy", declared("from-env-first", {}));
    expect(server.store.get("Proxy", outs.metadata.name)).toBeDefined();
  });

  it("prefers the stack config to the environment for the other settings", async () => {
    vi.stubEnv("EXAMPLEDEV_REQUEST_TIMEOUT_SECONDS", "not-a-number");
    await configureProvider({
      "exampledev:baseUrl": server.url,
      "exampledev:token": TOKEN,
      "exampledev:requestTimeoutSeconds": "20",
    });
    const { outs } = await created("Proxy", declared("from-config", {}));
    expect(server.store.get("Proxy", outs.metadata.name)).toBeDefined();
  });

  it("sends the token as a bearer token: refused (401) without it, served with it", async () => {
    const seen = await through((_request, forward) => forward());
    await configureProvider({ "exampledev:baseUrl": seen.url });
    const refused = await rejection(
      created("Proxy", declared("edge", {}, { metadata: { name: "guarded" } })),
    );
    expect(refused.message).toContain('Proxy "guarded"');
    expect(refused.message).toContain("401");

    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:token": TOKEN });
    await created("Proxy", declared("edge", {}, { metadata: { name: "guarded" } }));
    const [denied, allowed] = seen.exchanges;
    expect(denied?.status).toBe(401);
    expect(allowed?.status).toBe(201);
    expect(server.store.get("Proxy", "guarded")).toBeDefined();
  });

  it("never puts the token in an error message, even when a server quotes the request's headers", async () => {
    const wrong = `${TOKEN}-wrong`;
    await configureProvider({ "exampledev:baseUrl": server.url, "exampledev:token": wrong });
    const unauthorized = await rejection(created("Proxy", declared("edge", {})));
    expect(unauthorized.message).toContain("401");

    const quoting = await through(async (request) => ({
      status: 403,
      body: statusBody(403, "Forbidden", `no access for ${request.headers.authorization}`, {
        causes: [{ field: "metadata.name", message: `header ${request.headers.authorization}` }],
      }),
    }));
    await configureProvider({ "exampledev:baseUrl": quoting.url, "exampledev:token": TOKEN });
    const forbidden = await rejection(created("Proxy", declared("edge", {}, { metadata: { name: "edge" } })));
    expect(forbidden.message).toContain("403");
    const deleteError = await rejection(
      providerOf("Proxy").delete("edge", { metadata: { name: "edge" } } as never),
    );

    for (const [error, token] of [
      [unauthorized, wrong],
      [forbidden, TOKEN],
      [deleteError, TOKEN],
    ] as const) {
      expect(error.message).not.toContain(token);
      expect(JSON.stringify(error)).not.toContain(token);
    }
  });

  it("gives up on a server that does not answer within exampledev:requestTimeoutSeconds", async () => {
    const silent = await through(() => new Promise<never>(() => undefined));
    await configureProvider({
      "exampledev:baseUrl": silent.url,
      "exampledev:token": TOKEN,
      "exampledev:requestTimeoutSeconds": "0.2",
    });
    const error = await rejection(providerOf("Proxy").read("edge", { metadata: { name: "edge" } } as never));
    expect(error.message).toContain("no answer within 200 ms");
    expect(error.message).not.toContain(TOKEN);
  });

  it.each([
    ["not a URL", "api.example.dev"],
    ["a URL carrying credentials", `http://deployer:${TOKEN}@127.0.0.1:8080`],
  ])(
    "refuses a base URL that is %s, naming the config key and without echoing it",
    async (_case, baseUrl) => {
      const error = await firstCallError({ "exampledev:baseUrl": baseUrl });
      expect(error.message).toContain("exampledev:baseUrl");
      expect(error.message).not.toContain(TOKEN);
    },
  );

  it.each([
    ["exampledev:requestTimeoutSeconds", "soon", "a positive number"],
    ["exampledev:maxRetries", "2.5", "a whole number from 0 to 20"],
    ["exampledev:maxRetries", "21", "a whole number from 0 to 20"],
    ["exampledev:maxRetries", "-1", "a whole number from 0 to 20"],
  ])("refuses %s = %s, naming the key and what it takes", async (key, value, takes) => {
    const error = await firstCallError({ "exampledev:baseUrl": server.url, [key]: value });
    expect(error.message).toContain(`${key} must be ${takes}`);
  });

  it.each([
    ["0", 1],
    ["2", 3],
  ])(
    "sends a request that keeps meeting 503 1 + exampledev:maxRetries (%s) times",
    async (maxRetries, attempts) => {
      const overloaded = await through(async () => ({
        status: 503,
        body: statusBody(503, "ServiceUnavailable", "injected"),
      }));
      await configureProvider({ "exampledev:baseUrl": overloaded.url, "exampledev:maxRetries": maxRetries });
      const error = await rejection(
        providerOf("Proxy").read("edge", { metadata: { name: "edge" } } as never),
      );
      expect(error.message).toContain("503");
      expect(overloaded.exchanges).toHaveLength(attempts);
    },
  );
});
