import { expect } from "vitest";
import { type Json, pathOf } from "../../helpers/server";
import { type Backend, LOCAL_HISTORY_SIZE } from "./backends";
import { DIFFERENCES } from "./differences";
import { countedTest, create, failure, patch, proxies, unique } from "./helpers";

/**
 * Watches from a resourceVersion, bookmarks, expiry; lists at a version, by selector, and delete-collection.
 * `backend()` is the server of the enclosing describe.
 */
export function watchListTests(backend: () => Backend): void {
  const test = countedTest(backend);

  test("watch resumes from a resourceVersion: exactly the changes after it", async (server) => {
    const test = unique("resume");
    const first = await create(server, `${test}-a`, { test });
    await create(server, `${test}-b`, { test });
    await patch(server, `${test}-a`, { metadata: { labels: { step: "two" } } });
    const gone = await server.call("DELETE", `${pathOf("Proxy", `${test}-b`)}?gracePeriodSeconds=0`);
    expect(gone.status, gone.text).toBe(200);
    const stream = await server.watch(
      `${proxies}?watch=true&labelSelector=test=${test}&resourceVersion=${first.metadata.resourceVersion}`,
    );
    await stream.next((event) => event.type === "DELETED");
    stream.close();
    expect(stream.events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual([
      `ADDED ${test}-b`,
      `MODIFIED ${test}-a`,
      `DELETED ${test}-b`,
    ]);
  });

  test("a watch that allows bookmarks gets one, with only a resourceVersion, before its timeout", async (server) => {
    const name = unique("bookmark");
    const created = await create(server, name);
    // kube-apiserver sends it 2 s before the deadline; the local server at the deadline.
    const stream = await server.watch(
      `${proxies}?watch=true&labelSelector=test=${name}&resourceVersion=${created.metadata.resourceVersion}&allowWatchBookmarks=true&timeoutSeconds=5`,
    );
    // A write elsewhere moves the server's version on: kube-apiserver's watch cache learns its version from
    // events (etcd 3.4 sends it no progress notifications).
    await create(server, `${name}-other`);
    const bookmark = await stream.next((event) => event.type === "BOOKMARK", { timeoutMs: 10_000 });
    stream.close();
    expect(bookmark.object).toMatchObject({ kind: "Proxy", apiVersion: "core.example.dev/v1alpha2" });
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
      Number(created.metadata.resourceVersion),
    );
    expect(bookmark.object.spec).toBeUndefined();
  });

  test("a watch from a resourceVersion older than the kept history: ERROR 410 Expired", async (server) => {
    const name = unique("expired");
    await create(server, name);
    // More changes than the local server keeps; kube-apiserver's history starts after its CRDs were made.
    for (let i = 0; i <= LOCAL_HISTORY_SIZE; i++)
      await patch(server, name, { metadata: { labels: { i: `${i}` } } });
    const stream = await server.watch(`${proxies}?watch=true&resourceVersion=1`);
    await stream.ended;
    expect(stream.status).toBe(200);
    expect(stream.events).toEqual([
      {
        type: "ERROR",
        object: failure({
          message: expect.stringMatching(/^too old resource version: 1 \(\d+\)$/),
          reason: "Expired",
          code: 410,
        }),
      },
    ]);
    // A recent version still resumes.
    const list = await server.call("GET", proxies);
    const recent = await server.watch(
      `${proxies}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    await patch(server, name, { metadata: { labels: { i: "last" } } });
    expect((await recent.next()).type).toBe("MODIFIED");
    recent.close();
  });

  test("a list at an older exact resourceVersion with changes since", async (server) => {
    const name = unique("exact");
    const created = await create(server, name);
    await patch(server, name, { metadata: { labels: { step: "two" } } });
    const version = created.metadata.resourceVersion;
    const reply = await server.call(
      "GET",
      `${proxies}?resourceVersion=${version}&resourceVersionMatch=Exact`,
    );
    if (DIFFERENCES[server.name].exactListOfOlderVersion === "served") {
      expect(reply.status).toBe(200);
      expect(reply.body.metadata.resourceVersion).toBe(version);
    } else {
      expect(reply.status).toBe(410);
      expect(reply.body).toEqual(
        failure({
          reason: "Expired",
          message: "The resourceVersion for the provided list is too old.",
          code: 410,
        }),
      );
    }
  });

  test("label selectors and the metadata.name field selector", async (server) => {
    const test = unique("select");
    await create(server, `${test}-a`, { test, tier: "front" });
    await create(server, `${test}-b`, { test, tier: "back" });
    await create(server, `${test}-c`, { test });
    const names = async (query: string) =>
      (await server.call("GET", `${proxies}?${query}`)).body.items.map((item: Json) => item.metadata.name);
    expect(await names(`labelSelector=test=${test},tier=front`)).toEqual([`${test}-a`]);
    expect(await names(`labelSelector=test=${test},tier in (front,back)`)).toEqual([
      `${test}-a`,
      `${test}-b`,
    ]);
    expect(await names(`labelSelector=test=${test},!tier`)).toEqual([`${test}-c`]);
    expect(await names(`fieldSelector=metadata.name=${test}-b`)).toEqual([`${test}-b`]);
    expect(await names(`labelSelector=test=${test}&fieldSelector=metadata.name!=${test}-b`)).toEqual([
      `${test}-a`,
      `${test}-c`,
    ]);
  });

  test("a list is <Kind>List at a resourceVersion; delete-collection by label answers the deleted items", async (server) => {
    const test = unique("collection");
    await create(server, `${test}-a`, { test });
    await create(server, `${test}-b`, { test });
    const list = await server.call("GET", `${proxies}?labelSelector=test=${test}`);
    expect(list.body).toMatchObject({
      kind: "ProxyList",
      apiVersion: "core.example.dev/v1alpha2",
      metadata: { resourceVersion: expect.stringMatching(/^[1-9]\d*$/) },
    });
    const removed = await server.call("DELETE", `${proxies}?labelSelector=test=${test}&gracePeriodSeconds=0`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.kind).toBe("ProxyList");
    expect(removed.body.items.map((item: Json) => item.metadata.name).sort()).toEqual([
      `${test}-a`,
      `${test}-b`,
    ]);
    expect((await server.call("GET", `${proxies}?labelSelector=test=${test}`)).body.items).toEqual([]);
  });
}
