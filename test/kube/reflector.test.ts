// The one list/watch loop (sdk/client/reflector.ts) and the waits over it, on both backends: the list, then the
// watch from its version with every change in order; a watch whose connection drops resumed from the last
// version seen, without a list; a version the server no longer keeps (410) listed again; versions taken as
// opaque (rewritten to tokens no number can order, through the informer); `ResourceClient.waitFor` over a
// watch of the object. A streaming proxy between client and server drops the watches' connections.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Informer } from "../../controller/informer";
import {
  type Client,
  createClient,
  GoneError,
  type ServiceRevision,
  WaitTimeoutError,
} from "../../sdk/client";
import { type ListWatchClient, Reflector, type ReflectorEvent } from "../../sdk/client/reflector";
import type { ServiceRevisionSpecInput } from "../../sdk/schema";
import { VALID_SPECS } from "../api/fixtures";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { startWatchProxy, type WatchProxy } from "../helpers/watch-proxy";

type Revision = ServiceRevision;
type Event = ReflectorEvent<Revision>;

const FAST = { backoff: { baseDelayMs: 50, maxDelayMs: 50 } };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the reflector until the test ends, recording what it tells. */
function record(reflector: Reflector<Revision>) {
  const events: Event[] = [];
  const stop = new AbortController();
  const running = (async () => {
    for await (const event of reflector.events(stop.signal)) events.push(event);
  })();
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  /** Resolves with the first event from `from` on that matches. */
  const next = async (matches: (event: Event) => boolean, from = 0): Promise<Event> => {
    await expect.poll(() => events.slice(from).some(matches), { timeout: 20_000, interval: 10 }).toBe(true);
    return events.slice(from).find(matches) as Event;
  };
  return { events, next };
}

const isChange = (event: Event): event is Extract<Event, { object: Revision }> =>
  event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED";

/** The changes recorded, as `TYPE name@version`. */
const changes = (events: Event[]) =>
  events
    .filter(isChange)
    .map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`);

/** The last version the reflector saw (a list's, an event's or a bookmark's). */
function lastVersion(events: Event[]): string | undefined {
  for (const event of [...events].reverse()) {
    if (event.type === "LISTED") return event.resourceVersion;
    if ("object" in event) return event.object.metadata.resourceVersion;
  }
  return undefined;
}

/**
 * The kind's list and watch with every resourceVersion rewritten to a random token, both ways: a reader that
 * ordered versions (as numbers or as text) would go wrong; one that only passes them back and compares them
 * for equality cannot tell.
 */
function opaque(client: ListWatchClient<Revision>): ListWatchClient<Revision> {
  const tokens = new Map<string, string>();
  const real = new Map<string, string>();
  const token = (version: string | undefined) => {
    if (version === undefined) return undefined;
    if (!tokens.has(version)) {
      const made = randomUUID();
      tokens.set(version, made);
      real.set(made, version);
    }
    return tokens.get(version);
  };
  const rewritten = (object: Revision): Revision => ({
    ...object,
    metadata: { ...object.metadata, resourceVersion: token(object.metadata.resourceVersion) },
  });
  return {
    async list(options) {
      const page = await client.list(options);
      return {
        ...page,
        metadata: { ...page.metadata, resourceVersion: token(page.metadata.resourceVersion) },
        items: page.items.map(rewritten),
      };
    },
    async watch(options = {}) {
      const { resourceVersion, ...rest } = options;
      const stream = await client.watch({
        ...rest,
        ...(resourceVersion !== undefined && { resourceVersion: real.get(resourceVersion) ?? "?" }),
      });
      return {
        close: () => stream.close(),
        async *[Symbol.asyncIterator]() {
          for await (const event of stream) yield { ...event, object: rewritten(event.object) };
        },
      };
    },
  };
}

describe.each(BACKENDS)("the reflector, on the %s server", (backendName) => {
  let backend: Backend;
  let proxy: WatchProxy;
  /** A client through the proxy, with the admin's rights. */
  let proxied: Client;

  beforeAll(async () => {
    // A short history on the local server, so that a version is soon forgotten (kube-apiserver's watch
    // cache keeps versions since its start).
    backend = await startBackend(backendName, { watch: { historySize: 4 } });
    proxy = await startWatchProxy(backend.upstream.url, backend.upstream.dispatcher);
    const token = backend.configThrough(proxy.url)["exampledev:token"]?.value;
    proxied = createClient({ baseUrl: proxy.url, maxRetries: 0, ...(token !== undefined && { token }) });
  }, 120_000);

  afterAll(async () => {
    await proxied?.close();
    await proxy?.close();
    await backend?.close();
  });

  /** A revision labelled with the test's suite, so that each test's reflector sees its own. */
  const create = (name: string, suite: string) =>
    backend.client.serviceRevisions.create({
      metadata: { name, labels: { suite } },
      spec: VALID_SPECS.ServiceRevision as ServiceRevisionSpecInput,
    });
  const label = (name: string, value: string) =>
    backend.client.serviceRevisions.patch(name, { metadata: { labels: { step: value } } }, { type: "merge" });

  it("lists, then watches from the list's version and brings every change in order", async () => {
    await create("listed-a", "listed");
    const { events, next } = record(
      new Reflector(backend.client.serviceRevisions, { labelSelector: "suite=listed", pageSize: 1 }),
    );
    const listed = await next((event) => event.type === "LISTED");
    expect(listed).toMatchObject({ items: [{ metadata: { name: "listed-a" } }] });
    expect(await next((event) => event.type === "WATCHING")).toEqual({
      type: "WATCHING",
      resourceVersion: listed.type === "LISTED" && listed.resourceVersion,
      resumed: false,
    });

    const labelled = await label("listed-a", "two");
    const second = await create("listed-b", "listed");
    await backend.client.serviceRevisions.delete("listed-b");
    await next((event) => event.type === "DELETED");
    expect(changes(events).slice(0, 2)).toEqual([
      `MODIFIED listed-a@${labelled.metadata.resourceVersion}`,
      `ADDED listed-b@${second.metadata.resourceVersion}`,
    ]);
    expect(changes(events)[2]).toMatch(/^DELETED listed-b@/);
  });

  it("resumes from the last version seen after the watch's connection drops, without listing again", async () => {
    await create("dropped-a", "dropped");
    const { events, next } = record(
      new Reflector(proxied.serviceRevisions, { labelSelector: "suite=dropped", ...FAST }),
    );
    await next((event) => event.type === "WATCHING");
    await create("dropped-b", "dropped");
    await next((event) => isChange(event) && event.object.metadata.name === "dropped-b");

    proxy.holdAndCut();
    const failed = events.indexOf(await next((event) => event.type === "FAILED"));
    const reached = lastVersion(events.slice(0, failed));
    // Made while no watch is open: the resumed watch brings it.
    const missed = await create("dropped-c", "dropped");
    proxy.release();
    await next((event) => isChange(event) && event.object.metadata.name === "dropped-c", failed);

    expect(events.slice(failed).filter((event) => event.type === "WATCHING")[0]).toEqual({
      type: "WATCHING",
      resourceVersion: reached,
      resumed: true,
    });
    expect(changes(events.slice(failed))).toEqual([`ADDED dropped-c@${missed.metadata.resourceVersion}`]);
    expect(events.filter((event) => event.type === "LISTED")).toHaveLength(1);
    const watches = proxy.watches().filter((exchange) => exchange.path.includes("suite%3Ddropped"));
    expect(watches.at(-1)?.path).toContain(`resourceVersion=${reached}`);
  });

  it("lists again when the server no longer keeps the version (410 Gone), after a backoff", async () => {
    for (const suffix of ["a", "b", "c", "d", "e"])
      await label((await create(`gone-${suffix}`, "gone")).metadata.name, "x");
    // A list answered at a version long forgotten (as a stale cache might answer it): the watch from it is
    // refused by the server itself.
    let lists = 0;
    const revisions = backend.client.serviceRevisions;
    const stale: ListWatchClient<Revision> = {
      list: async (options) => {
        const page = await revisions.list(options);
        return lists++ === 0 ? { ...page, metadata: { ...page.metadata, resourceVersion: "1" } } : page;
      },
      watch: (options) => revisions.watch(options),
    };
    const { events, next } = record(new Reflector(stale, { labelSelector: "suite=gone", ...FAST }));
    await next((event) => event.type === "WATCHING" && event.resourceVersion !== "1");
    const made = await create("gone-f", "gone");
    await next((event) => isChange(event) && event.object.metadata.name === "gone-f");

    const kinds = events.filter((event) => !("object" in event)).map((event) => event.type);
    // The watch from "1" may open before the server refuses it (kube-apiserver sends its 410 as an event).
    expect(kinds.filter((type) => type !== "WATCHING")).toEqual(["LISTED", "FAILED", "LISTED"]);
    const failed = events.find((event) => event.type === "FAILED");
    expect(failed?.type === "FAILED" && failed.error).toBeInstanceOf(GoneError);
    const relisted = events.filter((event) => event.type === "LISTED")[1];
    expect(relisted?.type === "LISTED" && relisted.items?.map((item) => item.metadata.name)).toHaveLength(5);
    expect(changes(events)).toEqual([`ADDED gone-f@${made.metadata.resourceVersion}`]);
  });

  it("reads at most its buffer ahead of a reader that stops reading, then brings everything in order", async () => {
    let read = 0;
    const revisions = backend.client.serviceRevisions;
    const counted: ListWatchClient<Revision> = {
      list: (options) => revisions.list(options),
      async watch(options) {
        const stream = await revisions.watch(options);
        return {
          close: () => stream.close(),
          async *[Symbol.asyncIterator]() {
            for await (const event of stream) {
              read++;
              yield event;
            }
          },
        };
      },
    };
    const events = new Reflector(counted, { labelSelector: "suite=buffered", bufferSize: 3 }).events(
      new AbortController().signal,
    );
    cleanups.push(async () => void (await events.return(undefined)));
    expect((await events.next()).value?.type).toBe("LISTED");
    expect((await events.next()).value?.type).toBe("WATCHING");
    const made: string[] = [];
    for (let i = 0; i < 8; i++)
      made.push(
        `ADDED buffered-${i}@${(await create(`buffered-${i}`, "buffered")).metadata.resourceVersion}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Three wait in the buffer, and the reflector holds the fourth until there is room.
    expect(read).toBe(4);
    const brought: Event[] = [];
    while (brought.filter(isChange).length < made.length) brought.push((await events.next()).value as Event);
    expect(changes(brought)).toEqual(made);
  });

  it("takes versions as opaque: the informer over versions rewritten to tokens, through a dropped watch", async () => {
    await create("opaque-a", "opaque");
    const informer = new Informer(opaque(proxied.serviceRevisions), FAST);
    const calls: string[] = [];
    const updates: Revision[] = [];
    // The informer caches every revision; the test's are its own.
    const mine = (object: Revision) => object.metadata.name.startsWith("opaque-");
    informer.addHandlers({
      add: (object) => mine(object) && calls.push(`add ${object.metadata.name}`),
      update: (_, object) => {
        if (!mine(object)) return;
        updates.push(object);
        calls.push(`update ${object.metadata.name} ${object.metadata.labels?.step}`);
      },
      delete: (object) => mine(object) && calls.push(`delete ${object.metadata.name}`),
    });
    cleanups.push(() => informer.stop());
    const lists = () =>
      proxy.exchanges.filter(
        (e) => e.method === "GET" && /serviceRevisions\?limit=/i.test(e.path) && !e.path.includes("watch="),
      ).length;
    informer.start();
    await informer.synced();
    // A cache's version is a token, not the server's.
    expect(informer.resourceVersion).toMatch(/^[0-9a-f-]{36}$/);

    await label("opaque-a", "one");
    await expect.poll(() => calls).toContain("update opaque-a one");
    proxy.holdAndCut();
    await label("opaque-a", "two");
    await create("opaque-b", "opaque");
    proxy.release();
    await expect.poll(() => calls, { timeout: 20_000 }).toContain("add opaque-b");
    // A write's answer at a version the watch already brought (step one) is older news: the cache keeps two.
    informer.assume(updates[0] as Revision);
    await backend.client.serviceRevisions.delete("opaque-b");
    await expect.poll(() => calls, { timeout: 20_000 }).toContain("delete opaque-b");

    expect(calls).toEqual([
      "add opaque-a",
      "update opaque-a one",
      "update opaque-a two",
      "add opaque-b",
      "delete opaque-b",
    ]);
    expect(informer.get("opaque-a")?.metadata.labels?.step).toBe("two");
    expect(lists()).toBe(1);
  });
});

describe.each(BACKENDS)("ResourceClient.waitFor, on the %s server", (backendName) => {
  let backend: Backend;

  beforeAll(async () => {
    backend = await startBackend(backendName);
  }, 120_000);

  afterAll(() => backend?.close());

  const revisions = () => backend.client.serviceRevisions;
  const create = (name: string) =>
    revisions().create({ metadata: { name }, spec: VALID_SPECS.ServiceRevision as ServiceRevisionSpecInput });

  it("hears of the awaited change from the watch, and of a deletion", async () => {
    await create("awaited");
    const waiting = revisions().waitFor("awaited", (object) => object?.metadata.labels?.step === "done", {
      timeoutMs: 20_000,
      // No polling while the watch is live: only the watch can end this wait in time.
      intervalMs: 60_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await revisions().patch("awaited", { metadata: { labels: { step: "done" } } }, { type: "merge" });
    const started = Date.now();
    expect((await waiting)?.metadata.labels?.step).toBe("done");
    // Within the watch's delay, well before a look (at most one a second while the watch is live).
    expect(Date.now() - started).toBeLessThan(500);

    const gone = revisions().waitFor("awaited", (object) => object === undefined, { timeoutMs: 20_000 });
    await revisions().delete("awaited");
    await expect(gone).resolves.toBeUndefined();
  });

  it("gives up with WaitTimeoutError naming the object and keeping what it last saw", async () => {
    const made = await create("never");
    const error = await revisions()
      .waitFor("never", () => false, { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as Error).message).toBe(
      `ServiceRevision "never" did not reach the awaited state within 300 ms (last seen at generation 1, resourceVersion ${made.metadata.resourceVersion})`,
    );
    expect((error as WaitTimeoutError).lastSeen).toEqual(made);
  });
});
