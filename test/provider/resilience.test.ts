import { describe, expect, it } from "vitest";
import type { ObjectInputs } from "../../provider/state";
import {
  checked,
  configureProvider,
  created,
  declared,
  failingFirst,
  type ProxiedReply,
  type ProxyHandler,
  providerOf,
  rejection,
  statusBody,
  useProxiedServer,
} from "../helpers/provider";
import { pathOf } from "../helpers/server";
import { digestService, proxyWithKeys, REPO, revisionWithCredentials, SECRETS } from "./fixtures";

const UNAVAILABLE: Record<string, ProxiedReply> = {
  "503 Service Unavailable": {
    status: 503,
    body: statusBody(503, "ServiceUnavailable", "the server is restarting"),
  },
  "429 Too Many Requests with Retry-After: 1": {
    status: 429,
    headers: { "retry-after": "1" },
    body: statusBody(429, "TooManyRequests", "slow down", { retryAfterSeconds: 1 }),
  },
};

const expectNoSecret = (text: string) => {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
};

describe("HTTP resilience through the provider", () => {
  const env = useProxiedServer();
  const { through } = env;

  describe.each(Object.keys(UNAVAILABLE))("from a server answering %s twice first", (answer) => {
    const reply = UNAVAILABLE[answer] as ProxiedReply;
    const twice = (method: string) => failingFirst(2, (request) => request.method === method, reply);

    it("creates", async () => {
      const seen = await through(twice("POST"));
      const { outs } = await created("Proxy", declared("edge", proxyWithKeys()));
      expect(seen.seen("POST", pathOf("Proxy")).map((exchange) => exchange.status)).toEqual([
        reply.status,
        reply.status,
        201,
      ]);
      expect((await env.api.proxies.get(outs.metadata.name)).metadata.uid).toBe(outs.metadata.uid);
    });

    it("reads", async () => {
      await configureProvider({ "exampledev:baseUrl": env.server.url });
      const { outs: state } = await created("Proxy", declared("edge", {}));
      const seen = await through(twice("GET"));
      const { id } = await providerOf("Proxy").read(state.metadata.name, state);
      expect(id).toBe(state.metadata.name);
      expect(seen.seen("GET", pathOf("Proxy")).map((exchange) => exchange.status)).toEqual([
        reply.status,
        reply.status,
        200,
      ]);
    });

    it("deletes", async () => {
      await configureProvider({ "exampledev:baseUrl": env.server.url });
      const { outs: state } = await created(
        "Service",
        declared("api", digestService(REPO), { await: { skip: true } }),
      );
      const seen = await through(twice("DELETE"));
      await providerOf("Service").delete(state.metadata.name, state);
      expect(seen.seen("DELETE", pathOf("Service")).map((exchange) => exchange.status)).toEqual([
        reply.status,
        reply.status,
        200,
      ]);
      expect((await env.server.call("GET", pathOf("Service", state.metadata.name))).status).toBe(404);
    });
  });

  it("recognises its own create when the answer was lost after the server stored the object", async () => {
    let lost = false;
    const seen = await through(async (request, forward) => {
      const answer = await forward();
      if (request.method !== "POST" || lost) return answer;
      lost = true;
      return { status: 504, body: statusBody(504, "Timeout", "the gateway gave up waiting") };
    });
    const { outs } = await created("ServiceRevision", declared("manual", revisionWithCredentials(REPO)));
    expect(seen.seen("POST", pathOf("ServiceRevision")).map((exchange) => exchange.status)).toEqual([
      504, 409,
    ]);
    expect((await env.api.serviceRevisions.get(outs.metadata.name)).metadata.uid).toBe(outs.metadata.uid);
  });

  it("gives up on a server that stays unavailable, naming the object and the status", async () => {
    await through(
      failingFirst(
        Number.POSITIVE_INFINITY,
        () => true,
        UNAVAILABLE["503 Service Unavailable"] as ProxiedReply,
      ),
    );
    const error = await rejection(created("Proxy", declared("edge", {}, { metadata: { name: "unlucky" } })));
    expect(error.message).toContain('Proxy "unlucky"');
    expect(error.message).toContain("503");
  });

  describe("a permanent 422", () => {
    // The provider is called without check, as when the server's rules are newer than the program's schema.
    const invalid = (): ObjectInputs =>
      ({
        ...declared("edge", proxyWithKeys({ drainTimeout: "40s", minimumDrainTime: "10s" }), {
          metadata: { name: "rejected" },
        }),
        autoNamed: false,
      }) as ObjectInputs;

    it("is not retried, and names the kind, the object, the status and the causes with their field paths", async () => {
      const seen = await through((_request, forward) => forward());
      const error = await rejection(providerOf("Proxy").create(invalid()));
      expect(seen.seen("POST", pathOf("Proxy"))).toHaveLength(1);
      expect(error.message).toContain('Proxy "rejected"');
      expect(error.message).toContain("422 Invalid");
      expect(error.message).toContain("spec.shutdown.minimumDrainTime");
      expectNoSecret(error.message);
      expectNoSecret(JSON.stringify(error));
    });

    it("carries no secret even when the server quotes the request back in its causes", async () => {
      await configureProvider({ "exampledev:baseUrl": env.server.url });
      const { outs: state } = await created("Proxy", declared("edge", proxyWithKeys()));
      const echo: ProxyHandler = async (request, forward) =>
        request.method === "GET"
          ? forward()
          : {
              status: 422,
              body: statusBody(422, "Invalid", `refused ${request.body}`, {
                causes: [
                  { field: "spec.telemetry", reason: "FieldValueInvalid", message: `bad: ${request.body}` },
                ],
              }),
            };
      await through(echo);
      const createError = await rejection(providerOf("Proxy").create(invalid()));
      const news = await checked("Proxy", declared("edge", proxyWithKeys()), state);
      const updateError = await rejection(providerOf("Proxy").update(state.metadata.name, state, news));
      for (const error of [createError, updateError]) {
        expect(error.message).toContain("422");
        expect(error.message).toContain("spec.telemetry");
        expectNoSecret(error.message);
        expectNoSecret(JSON.stringify(error));
      }
    });
  });
});
