import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { type Client, createClient, type Proxy } from "../../sdk/client";
import { KindWatch } from "../../sdk/client/kind-watch";
import { type Condition, waitFor } from "../../sdk/client/wait";
import { configureProvider, created, declared, providerOf } from "../helpers/provider";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { openWatch } from "../helpers/watch";
import { startWatchProxy } from "../helpers/watch-proxy";

// The provider's waits hear of changes from one watch per kind (server-side watch, `?watch=true`), over the
// in-process server and real sockets. A streaming pass-through proxy between them cuts watches, refuses
// them, or holds them back, to show the fallback to polling and the resumption after 410 Expired.
/** Resolves when `check` holds, looking every 10 ms (a test's own wait, not the provider's). */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Ready once the object carries `step=<step>`. */
function labelled(step: string): Condition<Proxy | undefined> {
  return {
    describe: () => `step ${step}`,
    observe: (proxy) =>
      proxy?.metadata.labels?.step === step
        ? { state: "ready" }
        : { state: "pending", message: `at step ${proxy?.metadata.labels?.step}` },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer({ logLevel: "warn", ...options });
  cleanups.push(() => server.close());
  return server;
}

function clientOf(url: string): Client {
  const client = createClient({ baseUrl: url });
  cleanups.push(() => client.close());
  return client;
}

function sourceOf(client: Client, options: ConstructorParameters<typeof KindWatch>[1] = {}) {
  const source = new KindWatch<Proxy>(client.proxies, options);
  cleanups.push(() => source.close());
  return source;
}

async function label(server: TestServer, name: string, step: string): Promise<void> {
  const reply = await server.call("PATCH", pathOf("Proxy", name), {
    body: { metadata: { labels: { step } } },
    contentType: "application/merge-patch+json",
  });
  expect(reply.status, reply.text).toBe(200);
}

async function createProxy(server: TestServer, name: string): Promise<void> {
  const reply = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", name, {}) });
  expect(reply.status, reply.text).toBe(201);
}

describe("the provider's waits over a watch", () => {
  it("deletes Proxies in parallel over one watch and returns within milliseconds of the grace's end", async () => {
    const graceMs = 300;
    const server = await serve({ proxyDeletionGraceMs: graceMs });
    await configureProvider({ "exampledev:baseUrl": server.url });
    const names = Array.from({ length: 8 }, (_, i) => `parallel-${i}`);
    const states = await Promise.all(
      names.map(async (name) => (await created("Proxy", declared(name, {}, { metadata: { name } }))).outs),
    );
    // A watch of the test's own sees when the server lets each Proxy go.
    const listed = (await server.call("GET", `${pathOf("Proxy")}?limit=1`)).body.metadata.resourceVersion;
    const observer = await openWatch(server.url, `${pathOf("Proxy")}?watch=true&resourceVersion=${listed}`);
    cleanups.push(() => observer.close());
    const gone = new Map<string, number>();
    void (async () => {
      for (let from = 0; gone.size < names.length; ) {
        const event = await observer.next((e) => e.type === "DELETED", { from, timeoutMs: 30_000 });
        from = observer.events.indexOf(event) + 1;
        gone.set(event.object.metadata.name as string, performance.now());
      }
    })().catch(() => {});

    const returned = new Map<string, number>();
    await Promise.all(
      states.map(async (state) => {
        await providerOf("Proxy").delete(state.metadata.name, state);
        returned.set(state.metadata.name, performance.now());
      }),
    );

    for (const name of names) expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
    const source = providerOf("Proxy").watch();
    expect(source.isLive).toBe(true);
    // Eight waits, one watch.
    expect(source.watchesOpened).toBe(1);
    await until(() => gone.size === names.length, "the test's watch to see every deletion");
    const latencies = names.map((name) => (returned.get(name) ?? 0) - (gone.get(name) ?? 0));
    console.log(
      `delete returned after the grace (${graceMs} ms) ended, per Proxy: ` +
        `${latencies.map((ms) => ms.toFixed(1)).join(", ")} ms (from the DELETED event a separate watch saw)`,
    );
  });

  it("falls back to polling at a constant short interval when the server refuses watches", async () => {
    const server = await serve();
    const proxy = await startWatchProxy(server.url);
    cleanups.push(() => proxy.close());
    proxy.refuseWatches(true);
    await createProxy(server, "polled");
    const source = sourceOf(clientOf(proxy.url), { backoff: { baseDelayMs: 200, maxDelayMs: 200 } });

    const waiting = waitFor(source, "polled", labelled("two"), { timeoutMs: 10_000 });
    await until(() => proxy.watches().length >= 2, "the watch to be tried twice");
    await label(server, "polled", "two");
    const seen = await waiting;

    expect(seen?.metadata.labels?.step).toBe("two");
    expect(source.isLive).toBe(false);
    expect(proxy.watches().every((exchange) => exchange.status === 404)).toBe(true);
    const gets = proxy.exchanges.filter((e) => e.method === "GET" && e.path === pathOf("Proxy", "polled"));
    expect(gets.length).toBeGreaterThan(3);
  });

  it("keeps waiting through a watch cut mid-way: polls, then resumes the watch from the version it reached", async () => {
    const server = await serve();
    const proxy = await startWatchProxy(server.url);
    cleanups.push(() => proxy.close());
    await createProxy(server, "cut");
    const source = sourceOf(clientOf(proxy.url), { backoff: { baseDelayMs: 50, maxDelayMs: 50 } });

    const waiting = waitFor(source, "cut", labelled("three"), { timeoutMs: 10_000 });
    await until(() => source.isLive, "the watch to open");
    await label(server, "cut", "one");
    proxy.holdAndCut();
    await until(() => !source.isLive, "the provider to notice the cut");
    // Missed by the watch while it is down; the polling waiter sees it.
    await label(server, "cut", "two");
    proxy.release();
    await until(() => source.isLive, "the watch to be resumed");
    await label(server, "cut", "three");
    expect((await waiting)?.metadata.labels?.step).toBe("three");

    const watches = proxy.watches();
    expect(watches.map((exchange) => exchange.status)).toEqual([200, 200]);
    // The second watch resumed from a version (no new list in between).
    expect(watches[1]?.path).toMatch(/resourceVersion=[1-9]\d*/);
    const lists = proxy.exchanges.filter((e) => e.path.startsWith(`${pathOf("Proxy")}?limit=1`));
    expect(lists).toHaveLength(1);
  });

  it("after 410 Expired lists again, looks again, and hears of what it missed", async () => {
    const server = await serve({ watch: { historySize: 4 } });
    const proxy = await startWatchProxy(server.url);
    cleanups.push(() => proxy.close());
    await createProxy(server, "expiring");
    await createProxy(server, "busy");
    const source = sourceOf(clientOf(proxy.url), {
      backoff: { baseDelayMs: 50, maxDelayMs: 50 },
      pollIntervalMs: 60_000,
    });

    const waiting = waitFor(source, "expiring", labelled("late"), { timeoutMs: 20_000 });
    await until(() => source.isLive, "the watch to open");
    proxy.holdAndCut();
    await until(() => !source.isLive, "the provider to notice the cut");
    // More writes than the history keeps, then the change the waiter awaits: the resumed watch gets 410.
    for (let i = 0; i < 6; i++) await label(server, "busy", `b${i}`);
    await label(server, "expiring", "late");
    proxy.release();
    const seen = await waiting;

    expect(seen?.metadata.labels?.step).toBe("late");
    await until(() => source.isLive, "the watch to open again");
    const watches = proxy.watches();
    // The resumed watch starts (200) and its one event is the 410 Expired Status, as kube-apiserver answers.
    expect(watches.map((exchange) => exchange.status)).toEqual([200, 200, 200]);
    const lists = proxy.exchanges.filter((e) => e.path.startsWith(`${pathOf("Proxy")}?limit=1`));
    expect(lists).toHaveLength(2);
    expect(source.isLive).toBe(true);
  });
});
