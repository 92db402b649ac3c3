import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ObjectOutputs } from "../../provider/state";
import { DEFAULT_PROXY_DELETION_GRACE_MS } from "../../server";
import {
  configureProvider,
  created,
  declared,
  type LoopbackProxy,
  providerOf,
  startLoopbackProxy,
} from "../helpers/provider";
import { pathOf, startTestServer, type TestServer } from "../helpers/server";
import { digestService, REPO } from "./fixtures";

describe("delete", () => {
  let server: TestServer;
  let proxy: LoopbackProxy | undefined;

  beforeAll(async () => {
    // The production-like grace period: a deleted Proxy stays visible, terminating, for about a second.
    server = await startTestServer({
      logLevel: "warn",
      proxyDeletionGraceMs: DEFAULT_PROXY_DELETION_GRACE_MS,
    });
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Creates directly, then points the provider through a recording proxy for the delete. */
  async function createdThenWatched(kind: "Proxy" | "Service", spec: unknown) {
    await configureProvider({ "exampledev:baseUrl": server.url });
    const { outs } = await created(kind, declared("doomed", spec, { await: { timeoutSeconds: 30 } }));
    proxy = await startLoopbackProxy(server.url);
    await configureProvider({ "exampledev:baseUrl": proxy.url });
    return { outs, seen: proxy.seen };
  }

  it("deletes a Proxy and returns only once it is gone, waiting through the two-phase deletion", async () => {
    const { outs: state, seen } = await createdThenWatched("Proxy", {});
    const path = pathOf("Proxy", state.metadata.name);

    await providerOf("Proxy").delete(state.metadata.name, state);
    expect((await server.call("GET", path)).status).toBe(404);
    const [deletion] = seen("DELETE", path);
    expect(deletion?.status).toBeLessThan(300);
    const polls = seen("GET", path);
    // The provider saw the object terminating and kept looking until the API no longer had it.
    expect(polls.some((poll) => poll.status === 200 && hasDeletionTimestamp(poll.responseBody))).toBe(true);
    expect(polls.at(-1)?.status).toBe(404);
  });

  it("deletes a Service", async () => {
    const { outs: state } = await createdThenWatched("Service", digestService(REPO));
    await providerOf("Service").delete(state.metadata.name, state);
    expect((await server.call("GET", pathOf("Service", state.metadata.name))).status).toBe(404);
  });

  it("counts an object that is already gone as deleted", async () => {
    await configureProvider({ "exampledev:baseUrl": server.url });
    const state = { ...declared("ghost", {}, { metadata: { name: "ghost" } }), status: {} } as ObjectOutputs;
    await expect(providerOf("Proxy").delete("ghost", state)).resolves.toBeUndefined();
  });

  it("finishes deleting a Proxy someone else already started deleting", async () => {
    const { outs: state } = await createdThenWatched("Proxy", {});
    const path = pathOf("Proxy", state.metadata.name);
    expect((await server.call("DELETE", path)).status).toBeLessThan(300);

    await providerOf("Proxy").delete(state.metadata.name, state);
    expect((await server.call("GET", path)).status).toBe(404);
  });
});

describe("delete's timeout", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ logLevel: "warn", proxyDeletionGraceMs: 600_000 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("waits for a deletion at most await.timeoutSeconds (customTimeouts never reach a dynamic provider)", async () => {
    await configureProvider({ "exampledev:baseUrl": server.url });
    const { outs: state } = await created("Proxy", declared("slow", {}, { await: { timeoutSeconds: 1 } }));
    await expect(providerOf("Proxy").delete(state.metadata.name, state)).rejects.toThrow(
      // The drain (600 s) outlasts the timeout: the wait says the Proxy drains, and what ends it.
      /timed out after 1s waiting for the object to be deleted: draining for [0-2]s \(the controller removes core\.example\.dev\/drain/,
    );
  });
});

function hasDeletionTimestamp(body: unknown): boolean {
  return (
    typeof (body as { metadata?: { deletionTimestamp?: unknown } }).metadata?.deletionTimestamp === "string"
  );
}
