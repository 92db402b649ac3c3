import { afterEach, describe, expect, it } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";
import { openWatchCount } from "../../server/routes/watch";
import { manifest, pathOf, startTestServer, type TestServer, useDurableServers } from "../helpers/server";
import { type OpenWatch, openWatch } from "../helpers/watch";
import { KINDS_UNDER_TEST, SECRET_SPECS, SECRETS, VALID_SPECS } from "./fixtures";

// Watches as Kubernetes serves them (`?watch=true` on a list endpoint): newline-delimited JSON events,
// synthetic ADDED events for the current objects, resumption from a resourceVersion out of a bounded
// history (410 Expired beyond it), bookmarks, selectors with objects entering and leaving the selection,
// timeouts, a client going away and the server closing.

const durable = useDurableServers("watch");

describe("watch", () => {
  let server: TestServer;
  const watches: OpenWatch[] = [];
  afterEach(async () => {
    for (const watch of watches.splice(0)) watch.close();
    await server?.close();
  });

  const start = async (options: Parameters<typeof startTestServer>[0] = {}) => {
    // The API alone: a deleted Proxy goes at once (no controller drains it).
    server = await startTestServer(options);
    return server;
  };
  const watch = async (kind: KindName, query: string, headers: Record<string, string> = {}) => {
    const opened = await openWatch(server.url, `${pathOf(kind)}?${query}`, headers);
    watches.push(opened);
    return opened;
  };
  const create = async (kind: KindName, name: string, metadata: Record<string, unknown> = {}) => {
    const reply = await server.call("POST", pathOf(kind), {
      body: manifest(kind, name, VALID_SPECS[kind], metadata),
    });
    expect(reply.status, reply.text).toBe(201);
    return reply.body;
  };
  const label = async (kind: KindName, name: string, labels: Record<string, string | null>) => {
    const reply = await server.call("PATCH", pathOf(kind, name), {
      body: { metadata: { labels } },
      contentType: "application/merge-patch+json",
    });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const remove = async (kind: KindName, name: string) => {
    const reply = await server.call("DELETE", pathOf(kind, name));
    expect(reply.status, reply.text).toBe(200);
  };
  const listVersion = async (kind: KindName) =>
    (await server.call("GET", pathOf(kind))).body.metadata.resourceVersion as string;
  const summary = (events: OpenWatch["events"]) =>
    events.map(
      (event) => `${event.type} ${event.object.metadata?.name ?? event.object.metadata?.resourceVersion}`,
    );

  it.each(KINDS_UNDER_TEST)(
    "streams ADDED for the current %ss, then their changes and deletion",
    async (kind) => {
      await start();
      await create(kind, "a");
      await create(kind, "b");
      const stream = await watch(kind, "watch=true");
      expect(stream.status).toBe(200);
      expect(stream.headers["content-type"]).toMatch(/^application\/json/);
      expect(stream.headers["transfer-encoding"]).toBe("chunked");
      await stream.next((event) => event.object.metadata.name === "b");
      expect(summary(stream.events.slice(0, 2))).toEqual(["ADDED a", "ADDED b"]);
      expect(stream.events[0]?.object).toMatchObject({ apiVersion: KINDS[kind].apiVersion, kind });

      const labelled = await label(kind, "a", { tier: "front" });
      const modified = await stream.next(
        (event) => event.type === "MODIFIED" && event.object.metadata.labels?.tier === "front",
      );
      expect(modified.object.metadata.resourceVersion).toBe(labelled.metadata.resourceVersion);
      await remove(kind, "a");
      const deleted = await stream.next((event) => event.type === "DELETED");
      expect(deleted.object.metadata.name).toBe("a");
      // Each line is one JSON object.
      expect(
        stream
          .text()
          .split("\n")
          .filter(Boolean)
          .every((line) => JSON.parse(line).type),
      ).toBe(true);
    },
  );

  it("takes watch=1 as watch=true, and watch=false as a list", async () => {
    await start();
    await create("Proxy", "a");
    const stream = await watch("Proxy", "watch=1");
    expect((await stream.next()).type).toBe("ADDED");
    const list = await server.call("GET", `${pathOf("Proxy")}?watch=false`);
    expect(list.body.kind).toBe("ProxyList");
  });

  it("resumes from a resourceVersion: exactly the events after it, none of the objects before", async () => {
    await start();
    await create("Proxy", "before");
    const version = await listVersion("Proxy");
    await create("Proxy", "after");
    await label("Proxy", "before", { moved: "yes" });
    await remove("Proxy", "after");
    const stream = await watch("Proxy", `watch=true&resourceVersion=${version}`);
    await stream.next((event) => event.type === "DELETED");
    expect(summary(stream.events)).toEqual(["ADDED after", "MODIFIED before", "DELETED after"]);
    const versions = stream.events.map((event) => Number(event.object.metadata.resourceVersion));
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    expect(versions[0]).toBeGreaterThan(Number(version));
    // And goes on with what happens next.
    await create("Proxy", "later");
    await stream.next((event) => event.object.metadata.name === "later");
  });

  /** kube-apiserver's answer: the watch starts (200), its one event an ERROR with the 410 Status, then ends. */
  const expectExpired = async (version: string, oldest: number) => {
    const expired = await watch("Proxy", `watch=true&resourceVersion=${version}`);
    expect(expired.status).toBe(200);
    await expired.ended;
    expect(expired.events).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `too old resource version: ${version} (${oldest})`,
          reason: "Expired",
          code: 410,
        },
      },
    ]);
  };

  it("answers an ERROR event with 410 Expired for a resourceVersion older than the history keeps", async () => {
    await start({ watch: { historySize: 3 } });
    await create("Proxy", "a");
    const version = await listVersion("Proxy");
    expect(version).toBe("1");
    for (const name of ["b", "c", "d", "e", "f"]) await create("Proxy", name);
    await expectExpired(version, 3);
    // The kept tail still resumes.
    const recent = await watch("Proxy", "watch=true&resourceVersion=3");
    await recent.next((event) => event.object.metadata.name === "f");
    expect(summary(recent.events)).toEqual(["ADDED d", "ADDED e", "ADDED f"]);
  });

  it("lets go of events older than the retention: resourceVersion=1 is 410, a recent one resumes", async () => {
    await start({ watch: { historyRetentionMs: 200 } });
    await create("Proxy", "a");
    await create("Proxy", "b");
    await new Promise((resolve) => setTimeout(resolve, 300));
    await create("Proxy", "c");
    await expectExpired("1", 2);
    const recent = await watch("Proxy", "watch=true&resourceVersion=2");
    await recent.next((event) => event.object.metadata.name === "c");
    expect(summary(recent.events)).toEqual(["ADDED c"]);
  });

  it("answers a list at an exact version it no longer has as kube-apiserver does", async () => {
    await start();
    await create("Proxy", "a");
    await create("Proxy", "b");
    const reply = await server.call("GET", `${pathOf("Proxy")}?resourceVersion=1&resourceVersionMatch=Exact`);
    expect(reply.status).toBe(410);
    expect(reply.body).toMatchObject({
      reason: "Expired",
      message: "The resourceVersion for the provided list is too old.",
    });
  });

  it("sends bookmarks that carry only the resourceVersion, when allowed", async () => {
    await start({ watch: { bookmarkIntervalMs: 100 } });
    await create("Proxy", "a");
    const current = await listVersion("Proxy");
    const stream = await watch("Proxy", `watch=true&resourceVersion=${current}&allowWatchBookmarks=true`);
    const bookmark = await stream.next((event) => event.type === "BOOKMARK");
    expect(bookmark.object).toEqual({
      apiVersion: KINDS.Proxy.apiVersion,
      kind: "Proxy",
      metadata: { resourceVersion: current },
    });
    await create("Proxy", "b");
    const after = await stream.next((event) => event.type === "BOOKMARK", { from: stream.events.length });
    expect(Number(after.object.metadata.resourceVersion)).toBeGreaterThan(Number(current));
    const silent = await watch("Proxy", `watch=true&resourceVersion=${current}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(silent.events.filter((event) => event.type === "BOOKMARK")).toEqual([]);
  });

  it("sends the initial events and a bookmark marking their end (sendInitialEvents)", async () => {
    await start();
    await create("Proxy", "a");
    const stream = await watch(
      "Proxy",
      "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
    );
    const end = await stream.next((event) => event.type === "BOOKMARK");
    expect(summary(stream.events.slice(0, 1))).toEqual(["ADDED a"]);
    expect(end.object.metadata).toEqual({
      resourceVersion: await listVersion("Proxy"),
      annotations: { "k8s.io/initial-events-end": "true" },
    });
  });

  it("follows a label selector: ADDED when an object starts to match, DELETED when it stops", async () => {
    await start();
    await create("Proxy", "edge");
    await create("Proxy", "other", { labels: { team: "core" } });
    const stream = await watch("Proxy", "watch=true&labelSelector=team%3Dedge");
    await label("Proxy", "other", { tier: "x" }); // never matches: nothing
    await label("Proxy", "edge", { team: "edge" }); // starts to match
    await stream.next((event) => event.type === "ADDED");
    await label("Proxy", "edge", { tier: "front" }); // still matches
    await stream.next((event) => event.type === "MODIFIED");
    const moved = await label("Proxy", "edge", { team: "core" }); // stops matching
    const left = await stream.next((event) => event.type === "DELETED");
    expect(left.object.metadata.resourceVersion).toBe(moved.metadata.resourceVersion);
    await remove("Proxy", "edge"); // no longer selected: nothing
    await remove("Proxy", "other");
    await create("Proxy", "last", { labels: { team: "edge" } });
    await stream.next((event) => event.object.metadata.name === "last");
    expect(summary(stream.events)).toEqual(["ADDED edge", "MODIFIED edge", "DELETED edge", "ADDED last"]);
  });

  it("follows a field selector on metadata.name", async () => {
    await start();
    await create("ServiceRevision", "a");
    await create("ServiceRevision", "b");
    const stream = await watch("ServiceRevision", "watch=true&fieldSelector=metadata.name%3Db");
    await remove("ServiceRevision", "a");
    await remove("ServiceRevision", "b");
    await stream.next((event) => event.type === "DELETED");
    expect(summary(stream.events)).toEqual(["ADDED b", "DELETED b"]);
    const others = await watch("ServiceRevision", "watch=true&fieldSelector=metadata.name!%3Db");
    await create("ServiceRevision", "b");
    await create("ServiceRevision", "c");
    await others.next((event) => event.object.metadata.name === "c");
    expect(summary(others.events)).toEqual(["ADDED c"]);
  });

  it("ends the stream after timeoutSeconds, with a last bookmark when bookmarks are allowed", async () => {
    await start();
    const startedAt = Date.now();
    const stream = await watch("Proxy", "watch=true&timeoutSeconds=1&allowWatchBookmarks=true");
    await stream.ended;
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5000);
    expect(stream.events.map((event) => event.type)).toEqual(["BOOKMARK"]);
    expect(openWatchCount(server.store)).toBe(0);
  });

  it("frees a watch when its client goes away", async () => {
    await start();
    const stream = await watch("Proxy", "watch=true");
    const other = await watch("Service", "watch=true");
    expect(openWatchCount(server.store)).toBe(2);
    stream.close();
    await expect.poll(() => openWatchCount(server.store)).toBe(1);
    other.close();
    await expect.poll(() => openWatchCount(server.store)).toBe(0);
    // The server goes on serving (and watching).
    await create("Proxy", "a");
    const again = await watch("Proxy", "watch=true");
    await again.next();
  });

  it("ends open watches when the server closes", async () => {
    await start();
    const stream = await watch("Proxy", "watch=true");
    const closing = server.close();
    await stream.ended;
    await closing;
  });

  it("redacts secrets in events as in every response", async () => {
    await start();
    const stream = await watch("Proxy", "watch=true");
    const services = await watch("Service", "watch=true");
    const revisions = await watch("ServiceRevision", "watch=true");
    for (const kind of KINDS_UNDER_TEST) {
      const reply = await server.call("POST", pathOf(kind), {
        body: manifest(kind, "secret", SECRET_SPECS[kind]),
      });
      expect(reply.status, reply.text).toBe(201);
    }
    await stream.next();
    await services.next();
    await revisions.next((event) => event.object.metadata.name === "secret");
    for (const opened of [stream, services, revisions]) {
      for (const value of Object.values(SECRETS)) expect(opened.text()).not.toContain(value);
    }
    expect(stream.events[0]?.object.spec.telemetry.thirdPartySinks.vendorAlphaLogs.key).toBe("<API_KEY>");
  });

  it("waits for the durable commit of what it shows (group commit)", async () => {
    ({ server } = await durable());
    const stream = await watch("Proxy", "watch=true");
    await create("Proxy", "kept");
    await stream.next((event) => event.object.metadata.name === "kept");
  });

  describe("refuses malformed parameters with 400 naming them", () => {
    const cases: [string, string][] = [
      ["watch=maybe", "watch"],
      ["watch=true&timeoutSeconds=-1", "timeoutSeconds"],
      ["watch=true&timeoutSeconds=soon", "timeoutSeconds"],
      ["watch=true&allowWatchBookmarks=perhaps", "allowWatchBookmarks"],
      ["watch=true&resourceVersion=abc", "resourceVersion"],
      ["watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1", "resourceVersionMatch"],
      ["watch=true&sendInitialEvents=true", "resourceVersionMatch"],
      ["watch=true&continue=abc", "continue"],
      ["watch=true&labelSelector=a%20in%20()", "labelSelector"],
      ["watch=true&fieldSelector=spec.provider%3Dx", "fieldSelector"],
      ["watch=true&sendInitialEvents=yes&resourceVersionMatch=NotOlderThan", "sendInitialEvents"],
      ["sendInitialEvents=true", "sendInitialEvents"],
      ["watch=true&includeObject=All", "includeObject"],
    ];
    it.each(cases)("%s", async (query, parameter) => {
      await start();
      const reply = await server.call("GET", `${pathOf("Proxy")}?${query}`);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body).toMatchObject({ kind: "Status", reason: "BadRequest" });
      expect(reply.body.message).toContain(parameter);
    });
  });
});
