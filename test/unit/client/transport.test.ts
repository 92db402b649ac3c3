// The client against real loopback servers that misbehave on purpose: dropped connections, stalls,
// 503/429 with Retry-After, a server that comes up late, a lost answer to a create.
import { afterEach, describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  BadGatewayError,
  type Client,
  ConnectionError,
  CREATE_TOKEN_ANNOTATION,
  CreateUnconfirmedError,
  createClient,
  createTokenOf,
  type ProxyInput,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
} from "../../../sdk/client";
import { applyDefaults, moveWriteOnlyPasswords, redactSecrets } from "../../../sdk/schema";
import { freePort, json, type Peer, type PeerHandler, startPeer, status } from "./peer";

const PROXIES = "/apis/core.example.dev/v1alpha2/proxies";
const API_KEY = "sk-live-4f3e2d1c0b";
const TOKEN = "api-token-7a6b5c4d";

const edge: ProxyInput = {
  metadata: { name: "edge" },
  spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: API_KEY } } } },
};

/** The object as the API stores and returns it: defaults applied, secrets replaced by placeholders. */
function stored(body: string): object {
  const object = JSON.parse(body);
  const spec = redactSecrets("Proxy", applyDefaults("Proxy", moveWriteOnlyPasswords("Proxy", object.spec)));
  return {
    ...object,
    metadata: { ...object.metadata, uid: "u-1", resourceVersion: "1", generation: 1 },
    spec,
  };
}

const opened: { peers: Peer[]; clients: Client[] } = { peers: [], clients: [] };

afterEach(async () => {
  await Promise.all(opened.clients.splice(0).map((client) => client.close()));
  await Promise.all(opened.peers.splice(0).map((peer) => peer.close()));
});

async function peer(handler: PeerHandler, port?: number): Promise<Peer> {
  const started = await startPeer(handler, port === undefined ? {} : { port });
  opened.peers.push(started);
  return started;
}

/** A client whose waits are recorded instead of slept; `onSleep` runs during each wait. */
function client(
  baseUrl: string,
  options: { maxRetries?: number; timeoutMs?: number; onSleep?: () => Promise<void> } = {},
) {
  const waits: number[] = [];
  const created = createClient({
    baseUrl,
    token: TOKEN,
    maxRetries: options.maxRetries ?? 3,
    timeoutMs: options.timeoutMs ?? 5000,
    retry: { random: () => 0.5, now: () => Date.parse("2026-03-01T12:00:00Z") },
    sleep: async (ms) => {
      waits.push(ms);
      await options.onSleep?.();
    },
  });
  opened.clients.push(created);
  return { api: created, waits };
}

describe("retries on answers that say try again", () => {
  it("retries a GET answered 503 after the Retry-After the server asked for", async () => {
    const server = await peer((_request, response, index) => {
      if (index === 0)
        return json(response, 503, status(503, "ServiceUnavailable", "warming up"), { "retry-after": "3" });
      json(response, 200, stored(JSON.stringify(edge)));
    });
    const { api, waits } = client(server.baseUrl);
    const proxy = await api.proxies.get("edge");
    expect(proxy.metadata.name).toBe("edge");
    expect(waits).toEqual([3000]);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET ${PROXIES}/edge`,
      `GET ${PROXIES}/edge`,
    ]);
  });

  it("honours a 429's Retry-After given as an HTTP-date", async () => {
    const server = await peer((_request, response, index) => {
      if (index === 0) {
        return json(response, 429, status(429, "TooManyRequests", "slow down"), {
          "retry-after": "Sun, 01 Mar 2026 12:00:05 GMT",
        });
      }
      json(response, 200, {
        apiVersion: "core.example.dev/v1alpha2",
        kind: "ProxyList",
        metadata: {},
        items: [],
      });
    });
    const { api, waits } = client(server.baseUrl);
    await expect(api.proxies.list()).resolves.toMatchObject({ items: [] });
    expect(waits).toEqual([5000]);
  });

  it("gives up after maxRetries with the server's error", async () => {
    const server = await peer((_request, response) =>
      json(response, 503, status(503, "ServiceUnavailable", "down")),
    );
    const { api, waits } = client(server.baseUrl, { maxRetries: 2 });
    const error = await api.proxies.get("edge").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toBe(
      'Proxy "edge" failed: the server is unavailable (503 ServiceUnavailable): down',
    );
    expect(server.requests).toHaveLength(3);
    // No Retry-After: exponential backoff, jitter fixed at the middle.
    expect(waits).toEqual([250, 500]);
  });

  it("does not repeat a create answered 503", async () => {
    const server = await peer((_request, response) =>
      json(response, 503, status(503, "ServiceUnavailable", "down")),
    );
    const { api } = client(server.baseUrl);
    await expect(api.proxies.create(edge)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(server.requests).toHaveLength(1);
  });
});

describe("connection failures", () => {
  it("keeps trying while the connection is refused, then succeeds once the server is up", async () => {
    const port = await freePort();
    let attempts = 0;
    const { api, waits } = client(`http://127.0.0.1:${port}`, {
      // The server comes up during the second wait: two attempts were refused.
      onSleep: async () => {
        if (++attempts === 2)
          await peer((request, response) => json(response, 201, stored(request.body)), port);
      },
    });
    // Even a create: a refused connection means the request was never sent.
    const proxy = await api.proxies.create(edge);
    expect(proxy.spec.shutdown).toEqual({ drainTimeout: "30s", minimumDrainTime: "30s" });
    expect(waits).toHaveLength(2);
  });

  it("reports a refused connection after the last retry, without the token", async () => {
    const port = await freePort();
    const { api } = client(`http://127.0.0.1:${port}`, { maxRetries: 1 });
    const error = await api.proxies.get("edge").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: "ECONNREFUSED", attempts: 2, mayHaveReachedServer: false });
    expect((error as Error).message).toContain(`GET http://127.0.0.1:${port}${PROXIES}/edge failed:`);
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it("retries a GET whose connection dropped before the answer", async () => {
    const server = await peer((_request, response, index) => {
      if (index === 0) return response.socket?.destroy();
      json(response, 200, stored(JSON.stringify(edge)));
    });
    const { api } = client(server.baseUrl);
    await expect(api.proxies.get("edge")).resolves.toMatchObject({ metadata: { name: "edge" } });
    expect(server.requests).toHaveLength(2);
  });

  it("does not repeat a create whose answer was lost, by default", async () => {
    const server = await peer((_request, response) => response.socket?.destroy());
    const { api } = client(server.baseUrl);
    const error = await api.proxies.create(edge).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveReachedServer: true, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });
});

describe("a create that carries a createToken", () => {
  const token = "token-of-this-create";
  const theirs = () =>
    stored(
      JSON.stringify({
        ...edge,
        metadata: { name: "edge", annotations: { [CREATE_TOKEN_ANNOTATION]: "t2" } },
      }),
    );

  /** A server that stores the first create but loses its answer, then behaves like the API. */
  async function lossyServer(initial?: object): Promise<Peer> {
    let object = initial;
    return peer((request, response) => {
      if (request.method === "POST" && object) {
        return json(
          response,
          409,
          status(409, "AlreadyExists", 'proxies "edge" already exists', { name: "edge" }),
        );
      }
      if (request.method === "POST") {
        object = stored(request.body);
        return response.socket?.destroy();
      }
      json(response, 200, object);
    });
  }

  it("writes the token as an annotation and returns the stored object when a replay meets its own create", async () => {
    const server = await lossyServer();
    const { api } = client(server.baseUrl);
    const proxy = await api.proxies.create(edge, { createToken: token });
    expect(proxy).toMatchObject({ metadata: { name: "edge", uid: "u-1" }, spec: { provider: "cloud" } });
    expect(createTokenOf(proxy)).toBe(token);
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "POST", "GET"]);
  });

  it("raises the 409 when the stored object carries another token, even with the same spec", async () => {
    const server = await lossyServer(theirs());
    const { api } = client(server.baseUrl);
    const error = await api.proxies.create(edge, { createToken: token }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyExistsError);
    expect((error as Error).message).toBe(
      'Proxy "edge" already exists (409 AlreadyExists): proxies "edge" already exists',
    );
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "GET"]);
  });

  it("finds its object when every answer is lost and retries run out", async () => {
    let object: object | undefined;
    const server = await peer((request, response) => {
      if (request.method === "POST") {
        object ??= stored(request.body);
        return response.socket?.destroy();
      }
      json(response, 200, object);
    });
    const { api } = client(server.baseUrl, { maxRetries: 2 });
    const proxy = await api.proxies.create(edge, { createToken: token });
    expect(createTokenOf(proxy)).toBe(token);
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "POST", "POST", "GET"]);
  });

  it("keeps the create's error when the lookup shows nothing was stored", async () => {
    const server = await peer((request, response) => {
      if (request.method === "POST") return json(response, 503, status(503, "ServiceUnavailable", "busy"));
      json(response, 404, status(404, "NotFound", 'proxies "edge" not found'));
    });
    const { api } = client(server.baseUrl, { maxRetries: 1 });
    const error = await api.proxies.create(edge, { createToken: token }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "POST", "GET"]);
  });

  it("says the outcome is unknown when the lookup fails too", async () => {
    const server = await peer((_request, response) => response.socket?.destroy());
    const { api } = client(server.baseUrl, { maxRetries: 1 });
    const error = await api.proxies.create(edge, { createToken: token }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CreateUnconfirmedError);
    expect((error as CreateUnconfirmedError).cause).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(
      /^Proxy "edge" may have been created: POST .* whether it exists is unknown$/,
    );
  });
});

describe("timeouts", () => {
  it("fails a request with no answer within timeoutMs", async () => {
    const server = await peer(() => {});
    const { api } = client(server.baseUrl, { timeoutMs: 200, maxRetries: 0 });
    const error = await api.proxies.get("edge").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 200, mayHaveReachedServer: true });
  });

  it("retries a GET that timed out", async () => {
    const server = await peer((_request, response, index) => {
      if (index > 0) json(response, 200, stored(JSON.stringify(edge)));
    });
    const { api } = client(server.baseUrl, { timeoutMs: 200 });
    await expect(api.proxies.get("edge")).resolves.toMatchObject({ metadata: { name: "edge" } });
    expect(server.requests).toHaveLength(2);
  });

  it("stops at once when the caller aborts, without retrying", async () => {
    const server = await peer(() => {});
    const { api } = client(server.baseUrl);
    const controller = new AbortController();
    const pending = api.proxies.get("edge", { signal: controller.signal });
    setImmediate(() => controller.abort(new Error("caller gave up")));
    await expect(pending).rejects.toThrow("caller gave up");
  });
});

describe("what the server answers", () => {
  it("sends the bearer token and keeps it out of the error even when the server echoes it", async () => {
    const server = await peer((request, response) =>
      json(response, 401, status(401, "Unauthorized", `token ${request.headers.authorization} is not valid`)),
    );
    const { api } = client(server.baseUrl);
    const error = await api.proxies.get("edge").catch((e: unknown) => e);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it("keeps the request's secrets out of a 422 even when a cause repeats them", async () => {
    const server = await peer((_request, response) =>
      json(
        response,
        422,
        status(422, "Invalid", "invalid", {
          causes: [
            { field: "spec.telemetry.thirdPartySinks.vendorAlphaLogs.key", message: `bad value ${API_KEY}` },
          ],
        }),
      ),
    );
    const { api } = client(server.baseUrl);
    const error = await api.proxies.create(edge).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'Proxy "edge" was rejected (422 Invalid): spec.telemetry.thirdPartySinks.vendorAlphaLogs.key: bad value <redacted>',
    );
  });

  it("reports a gateway's HTML error page by its status, without the page", async () => {
    const server = await peer((_request, response) => {
      response.writeHead(502, { "content-type": "text/html" });
      response.end(`<h1>Bad Gateway</h1><pre>authorization: Bearer ${TOKEN}</pre>`);
    });
    const { api } = client(server.baseUrl, { maxRetries: 0 });
    const error = await api.proxies.get("edge").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadGatewayError);
    expect((error as Error).message).toBe('Proxy "edge" failed: bad gateway (502 BadGateway)');
  });

  it("fails a success that is not JSON, pointing at the base URL", async () => {
    const server = await peer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<html>a web site</html>");
    });
    const { api } = client(server.baseUrl);
    await expect(api.proxies.get("edge")).rejects.toThrow(
      new UnexpectedResponseError(200, {
        method: "GET",
        url: `${server.baseUrl}${PROXIES}/edge`,
        contentType: "text/html",
      }),
    );
  });

  it("keeps connections alive: consecutive requests share them", async () => {
    const server = await peer((_request, response) => json(response, 200, stored(JSON.stringify(edge))));
    const { api } = client(server.baseUrl);
    for (let i = 0; i < 4; i++) await api.proxies.get("edge");
    const connections = new Set(server.requests.map((request) => request.remotePort));
    expect(connections.size).toBeLessThan(server.requests.length);
  });
});
