import { afterEach, describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError, TimeoutError } from "../../../sdk/errors";
import { SECRET_ANNOTATION } from "../../../sdk/schema";
import { WEBHOOK_REQUESTS, webhookClient } from "../../../webhook/client";
import { SecretKeeper } from "../../../webhook/secrets";
import { json, type Peer, startPeer, status } from "../client/peer";

// The webhook's calls to kube-apiserver go through sdk/client's transport (they had no deadline, no retry
// and errors made of a status code): each attempt has a deadline, so a review answers within kube-apiserver's
// webhook timeout; a read is tried once more; an error answer is the client's typed error. Against a real
// HTTP server that answers, refuses or never answers.

let peer: Peer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const named = { metadata: { name: "p", annotations: { [SECRET_ANNOTATION]: "proxies.p-0123abcd" } } };

async function keeperOf(handler: Parameters<typeof startPeer>[0]): Promise<SecretKeeper> {
  peer = await startPeer(handler);
  return new SecretKeeper(webhookClient({ baseUrl: peer.baseUrl }));
}

describe("the webhook's client", () => {
  it("fits its attempts in kube-apiserver's 10 s webhook timeout", () => {
    const { timeoutMs, maxRetries } = WEBHOOK_REQUESTS;
    expect(timeoutMs * (maxRetries + 1)).toBeLessThan(10_000);
  });

  it("gives up on a read that gets no answer after two attempts of its deadline", {
    timeout: 20_000,
  }, async () => {
    const keeper = await keeperOf(() => {});
    const started = Date.now();
    const failure = await keeper.kept(named).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect(failure).toMatchObject({ timeoutMs: WEBHOOK_REQUESTS.timeoutMs, attempts: 2 });
    expect(Date.now() - started).toBeLessThan(2 * WEBHOOK_REQUESTS.timeoutMs + 2_000);
  });

  it("sends a mint that gets no answer once: a POST is never repeated", { timeout: 20_000 }, async () => {
    const keeper = await keeperOf(() => {});
    await expect(keeper.mint("Proxy", "p", { "spec.key": "v" })).rejects.toMatchObject({
      name: "TimeoutError",
      attempts: 1,
      mayHaveReachedServer: true,
    });
    expect(peer?.requests.map(({ method }) => method)).toEqual(["POST"]);
  });

  it("throws the typed error of an error answer", async () => {
    const keeper = await keeperOf((request, response) =>
      request.method === "GET" && request.url.includes("/secrets/")
        ? json(response, 403, status(403, "Forbidden", 'secrets "x" is forbidden'))
        : json(response, 404, status(404, "NotFound", "not found")),
    );
    await expect(keeper.kept(named)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(keeper.valuesOf(named)).rejects.toBeInstanceOf(ForbiddenError);
    // A stored object that is not there is an answer, not a failure.
    expect(await keeper.differsFromStored("Proxy", named)).toBe('Proxy "p" is not stored: nothing to update');
  });

  it("reads a Secret that is gone as not kept, and its values as NotFound", async () => {
    const keeper = await keeperOf((_request, response) =>
      json(response, 404, status(404, "NotFound", 'secrets "proxies.p-0123abcd" not found')),
    );
    expect(await keeper.kept(named)).toBe(false);
    await expect(keeper.valuesOf(named)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("repeats a read kube-apiserver could not serve, and names itself in User-Agent", async () => {
    const keeper = await keeperOf((_request, response, index) =>
      index === 0
        ? json(response, 503, status(503, "ServiceUnavailable", "etcd is unavailable"))
        : json(response, 200, { data: { "spec.key": Buffer.from("v").toString("base64") } }),
    );
    expect(await keeper.valuesOf(named)).toEqual({ "spec.key": "v" });
    expect(peer?.requests).toHaveLength(2);
    expect(peer?.requests[0]?.headers["user-agent"]).toBe(WEBHOOK_REQUESTS.userAgent);
  });
});
