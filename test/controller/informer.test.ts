// The informer against the local server: the first list, the watch after it, and the relist when the
// version it resumes from is gone (the cache then equals the server's objects, and the handlers heard of
// every difference).
import { afterEach, describe, expect, it, vi } from "vitest";
import { Informer } from "../../controller/informer";
import { type Client, createClient, type ServiceRevision, type WatchStream } from "../../sdk/client";
import type { ListWatchClient } from "../../sdk/client/reflector";
import type { ServiceRevisionSpecInput } from "../../sdk/schema";
import { VALID_SPECS } from "../api/fixtures";
import { startTestServer, type TestServer } from "../helpers/server";

// Revisions: deleted at once (a Proxy's deletion first marks it while the controller drains it).
const SPEC = VALID_SPECS.ServiceRevision;
type Revision = ServiceRevision;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp(options: Parameters<typeof startTestServer>[0] = {}) {
  const server: TestServer = await startTestServer(options);
  const client: Client = createClient({ baseUrl: server.url, maxRetries: 0 });
  closers.push(
    () => server.close(),
    () => client.close(),
  );
  const create = (name: string, labels: Record<string, string> = {}) =>
    client.serviceRevisions.create({ metadata: { name, labels }, spec: SPEC as ServiceRevisionSpecInput });
  return { server, client, create };
}

/** The informer with every handler call recorded as `add a`, `update a`, `delete a`. */
function recorded(
  client: ListWatchClient<Revision>,
  options: ConstructorParameters<typeof Informer>[1] = {},
) {
  const informer = new Informer(client, { backoff: { baseDelayMs: 10, maxDelayMs: 20 }, ...options });
  const calls: string[] = [];
  informer.addHandlers({
    add: (object) => calls.push(`add ${object.metadata.name}`),
    update: (_, object) => calls.push(`update ${object.metadata.name}`),
    delete: (object) => calls.push(`delete ${object.metadata.name}`),
  });
  closers.push(() => informer.stop());
  return { informer, calls };
}

/** Resolves once the informer has brought the event (or list) at exactly `version`. */
const reached = (informer: Informer<Revision>, version: string | undefined) =>
  informer.reachedWhen((at) => at === version);

const names = (informer: Informer<Revision>) =>
  informer
    .list()
    .map((object) => object.metadata.name)
    .sort();

/** A client whose watches can be broken and held back, to make the server forget the version they resume from. */
function interruptible(client: ListWatchClient<Revision>) {
  const streams: WatchStream<Revision>[] = [];
  let gate: Promise<void> = Promise.resolve();
  const watched: (string | undefined)[] = [];
  const wrapped: ListWatchClient<Revision> = {
    list: (options) => client.list(options),
    watch: async (options) => {
      await gate;
      const stream = await client.watch(options);
      // Counted once open, so that a test that saw it counted can break it.
      streams.push(stream);
      watched.push(options?.resourceVersion);
      return stream;
    },
  };
  return {
    client: wrapped,
    watched,
    /** Breaks the open watch; the next one opens once `release` is called. */
    hold() {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      for (const stream of streams.splice(0)) stream.close();
      return release;
    },
  };
}

/** A synced informer over a watch the test can break, with "a" listed and its first watch open. */
async function watchingOne() {
  const { client, create } = await setUp();
  await create("a");
  const watches = interruptible(client.serviceRevisions);
  const { informer, calls } = recorded(watches.client);
  informer.start();
  await informer.synced();
  await vi.waitFor(() => expect(watches.watched).toHaveLength(1));
  return { client, create, watches, informer, calls };
}

describe("the informer", () => {
  it("keeps of each object what its transform leaves, from the list, the watch and an assumed write", async () => {
    const { client, create } = await setUp();
    await create("a", { listed: "yes" });
    const informer = new Informer(client.serviceRevisions, {}, (object: Revision) => ({
      ...object,
      metadata: { name: object.metadata.name, resourceVersion: object.metadata.resourceVersion },
      spec: {} as Revision["spec"],
    }));
    closers.push(() => informer.stop());
    informer.addHandlers({});
    informer.start();
    await informer.synced();
    await create("b", { watched: "yes" });
    await vi.waitFor(() => expect(informer.get("b")).toBeDefined());
    informer.assume(await create("c", { assumed: "yes" }));
    for (const name of ["a", "b", "c"]) {
      expect(informer.get(name)?.metadata).toEqual({ name, resourceVersion: expect.any(String) });
      expect(informer.get(name)?.spec).toEqual({});
    }
  });

  it("lists in pages, is synced with every object added, then follows creates, updates and deletes", async () => {
    const { client, create } = await setUp();
    for (const name of ["a", "b", "c"]) await create(name);
    const { informer, calls } = recorded(client.serviceRevisions, { pageSize: 2 });
    informer.start();
    await informer.synced();
    expect(names(informer)).toEqual(["a", "b", "c"]);
    expect(calls.sort()).toEqual(["add a", "add b", "add c"]);
    calls.length = 0;

    await create("d");
    await client.serviceRevisions.patch("a", { metadata: { labels: { changed: "yes" } } }, { type: "merge" });
    await client.serviceRevisions.delete("b");
    await vi.waitFor(() => expect(calls).toEqual(["add d", "update a", "delete b"]));
    expect(informer.get("a")?.metadata.labels).toEqual({ changed: "yes" });
    expect(names(informer)).toEqual(["a", "c", "d"]);
    expect(informer.resourceVersion).toBe((await client.serviceRevisions.list()).metadata.resourceVersion);
  });

  it("resumes a broken watch from the version it reached, without listing again", async () => {
    const { create, watches, informer, calls } = await watchingOne();
    const from = informer.resourceVersion;
    const release = watches.hold();
    await create("b");
    release();
    await vi.waitFor(() => expect(calls).toEqual(["add a", "add b"]));
    expect(watches.watched).toEqual([from, from]);
  });

  it("lists again when the version it resumes from is gone (410), and hands out the differences", async () => {
    const { client, create } = await setUp({ watch: { historySize: 2 } });
    for (const name of ["a", "b"]) await create(name);
    const watches = interruptible(client.serviceRevisions);
    const { informer, calls } = recorded(watches.client);
    informer.start();
    await informer.synced();
    await vi.waitFor(() => expect(watches.watched).toHaveLength(1));
    calls.length = 0;

    const release = watches.hold();
    await client.serviceRevisions.delete("a");
    await client.serviceRevisions.patch("b", { metadata: { labels: { changed: "yes" } } }, { type: "merge" });
    for (const name of ["c", "d", "e"]) await create(name);
    release();

    await vi.waitFor(() => expect(names(informer)).toEqual(["b", "c", "d", "e"]));
    expect(calls.sort()).toEqual(["add c", "add d", "add e", "delete a", "update b"]);
    expect(informer.get("b")?.metadata.labels).toEqual({ changed: "yes" });
    // The next watch starts from the relisted version, not the one that was gone.
    const relisted = (await client.serviceRevisions.list()).metadata.resourceVersion;
    await vi.waitFor(() => expect(watches.watched.at(-1)).toBe(relisted));
  });

  it("waits a growing backoff after a failure and goes on", async () => {
    const { client, create } = await setUp();
    await create("a");
    let failures = 2;
    const errors: unknown[] = [];
    const delays: number[] = [];
    const { informer, calls } = recorded(
      {
        list: (options) => {
          if (failures-- > 0) throw new Error("connect ECONNREFUSED");
          return client.serviceRevisions.list(options);
        },
        watch: (options) => client.serviceRevisions.watch(options),
      },
      {
        backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
        onError: (error) => errors.push(error),
        sleep: async (ms) => void delays.push(ms),
      },
    );
    informer.start();
    await informer.synced();
    expect(calls).toEqual(["add a"]);
    expect(errors.map((error) => (error as Error).message)).toEqual([
      "connect ECONNREFUSED",
      "connect ECONNREFUSED",
    ]);
    // Equal jitter: at least half of 100, then of 200.
    expect(delays[0]).toBeGreaterThanOrEqual(50);
    expect(delays[1]).toBeGreaterThanOrEqual(100);
  });

  it("takes its own writes at once; the watch's event of the same version is no news", async () => {
    const { client, create } = await setUp();
    const { informer, calls } = recorded(client.serviceRevisions);
    informer.start();
    await informer.synced();
    const created = await create("a");
    informer.assume(created);
    expect(calls).toEqual(["add a"]);
    await reached(informer, created.metadata.resourceVersion);
    expect(calls).toEqual(["add a"]);

    const labelled = await client.serviceRevisions.patch(
      "a",
      { metadata: { labels: { changed: "yes" } } },
      { type: "merge" },
    );
    informer.assume(labelled);
    // An older version never replaces a newer one.
    informer.assume(created);
    expect(informer.get("a")?.metadata.labels).toEqual({ changed: "yes" });
    await client.serviceRevisions.delete("a");
    informer.assumeDeleted("a");
    expect(informer.get("a")).toBeUndefined();
    await reached(informer, (await client.serviceRevisions.list()).metadata.resourceVersion);
    expect(calls).toEqual(["add a", "update a", "delete a"]);
  });

  it("does not bring back what it deleted when older events of it arrive late", async () => {
    const { client, create, watches, informer, calls } = await watchingOne();
    const release = watches.hold();
    await client.serviceRevisions.patch("a", { metadata: { labels: { late: "yes" } } }, { type: "merge" });
    await client.serviceRevisions.delete("a");
    informer.assumeDeleted("a");
    const recreated = await create("a");
    release();
    await reached(informer, recreated.metadata.resourceVersion);
    // The late MODIFIED of the deleted incarnation changed nothing; its DELETED found it gone.
    expect(calls).toEqual(["add a", "delete a", "add a"]);
    expect(informer.get("a")?.metadata.uid).toBe(recreated.metadata.uid);
  });

  it("does not bring back an object whose deletion arrived before the answer to a write of it", async () => {
    // The drain's patch that takes off a Proxy's last finalizer is answered after the server removed the
    // Proxy: on a busy controller the watch's DELETED is read first.
    const { client, informer, calls } = await watchingOne();
    const labelled = await client.serviceRevisions.patch(
      "a",
      { metadata: { labels: { late: "yes" } } },
      { type: "merge" },
    );
    await client.serviceRevisions.delete("a");
    await reached(informer, (await client.serviceRevisions.list()).metadata.resourceVersion);
    informer.assume(labelled);
    expect(informer.get("a")).toBeUndefined();
    expect(calls).toEqual(["add a", "update a", "delete a"]);
  });

  it("stops: the watch ends and the cache keeps what it held", async () => {
    const { client, create } = await setUp();
    await create("a");
    const { informer, calls } = recorded(client.serviceRevisions);
    informer.start();
    await informer.synced();
    await informer.stop();
    await create("b");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toEqual(["add a"]);
    expect(names(informer)).toEqual(["a"]);
  });
});
