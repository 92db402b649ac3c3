import { describe, expect, it } from "vitest";
import type { ApiObject } from "../../../sdk/client/types";
import { apiErrorFromResponse, InternalError } from "../../../sdk/errors";
import { spaceExceeded } from "../../../sdk/errors/server-errors";
import { KINDS } from "../../../sdk/schema";
import { WatchHub, type WatchOutput } from "../../../server/resources/watch";
import { EventHistory } from "../../../server/storage/history";
import { Store } from "../../../server/storage/store";
import type { Journal, JournalObserver } from "../../../server/storage/types";

// A batch its journal loses (its commit found no space) leaves nothing behind: the store's memory, its
// version, the watch history and the watches are as before the batch, and the reset listeners hear of it.

const proxy = (name: string, labels?: Record<string, string>): ApiObject => ({
  apiVersion: KINDS.Proxy.apiVersion,
  kind: "Proxy",
  metadata: { name, ...(labels && { labels }) },
  spec: {},
});

/** A journal whose batches the test commits or loses, durable as told. */
function controlledJournal() {
  let observer: JournalObserver | undefined;
  // The batch the writes since the last commit make (the one durable() waits for).
  let pending: { resolve: () => void; reject: (error: Error) => void; promise: Promise<void> } | undefined;
  const write = () => {
    if (pending) return;
    let resolve!: () => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {});
    pending = { resolve, reject, promise };
  };
  const journal: Journal = {
    load: () => ({ objects: [], resourceVersion: 0 }),
    put: write,
    remove: write,
    durable: () => pending?.promise ?? Promise.resolve(),
    observe: (given) => {
      observer = given;
    },
    close: () => {},
  };
  const settle = (lose: boolean) => {
    const waiting = pending;
    pending = undefined;
    if (lose) {
      observer?.lost();
      waiting?.reject(spaceExceeded("/data", "the disk has no space left"));
    } else {
      observer?.committed();
      waiting?.resolve();
    }
  };
  return { journal, commit: () => settle(false), lose: () => settle(true) };
}

describe("a batch the journal loses", () => {
  it("leaves the store, its history and its watches as they were, and tells the reset listeners", async () => {
    const { journal, commit, lose } = controlledJournal();
    const store = new Store({ journal });
    const history = new EventHistory(store);
    const hub = new WatchHub(store, history);
    const sent: WatchOutput[] = [];
    const sink = { send: (event: WatchOutput) => sent.push(event), sendBacklog: () => {}, end: () => {} };
    hub.open(
      { kind: "Proxy", labels: [], fields: [], resourceVersion: "0", allowWatchBookmarks: false },
      sink,
    );
    const resets: number[] = [];
    store.subscribeResets((version) => resets.push(version));

    store.create("Proxy", proxy("kept"));
    commit();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((event) => event.object.metadata.name)).toEqual(["kept"]);

    const before = store.get("Proxy", "kept") as ApiObject;
    store.update("Proxy", { ...before, metadata: { ...before.metadata, labels: { a: "b" } } });
    store.create("Proxy", proxy("lost"));
    store.delete("Proxy", "kept");
    let ended = false;
    hub.open(
      { kind: "Proxy", labels: [], fields: [], allowWatchBookmarks: false },
      { send: () => {}, sendBacklog: () => {}, end: () => (ended = true) },
    );
    lose();
    await new Promise((resolve) => setImmediate(resolve));

    expect(store.resourceVersion()).toBe("1");
    expect(store.get("Proxy", "lost")).toBeUndefined();
    expect(store.get("Proxy", "kept")).toEqual(before);
    expect(history.since("Proxy", 1)).toEqual([]);
    expect(resets).toEqual([1]);
    // The first watch never sees the undone events; the one opened on them (it listed "lost") ends.
    expect(sent.map((event) => event.object.metadata.name)).toEqual(["kept"]);
    expect(ended).toBe(true);

    // The next write takes the next version, and its event goes out.
    store.create("Proxy", proxy("next"));
    expect(store.resourceVersion()).toBe("2");
    commit();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((event) => [event.type, event.object.metadata.name])).toEqual([
      ["ADDED", "kept"],
      ["ADDED", "next"],
    ]);
  });
});

describe("the refusal for lack of space", () => {
  it("reaches a client as kube-apiserver's 500 InternalError, quoting the data directory and the cause", () => {
    const refusal = spaceExceeded("/var/lib/data", "the disk has no space left: database or disk is full");
    const decoded = apiErrorFromResponse(500, JSON.parse(JSON.stringify(refusal.status)), {
      kind: "Proxy",
      name: "p",
    });
    expect(decoded).toBeInstanceOf(InternalError);
    expect(decoded.message).toBe(
      'Proxy "p" failed on the server (500 InternalError): Internal error occurred: database space exceeded: ' +
        "the data directory /var/lib/data is full (the disk has no space left: database or disk is full); " +
        "writes are refused until space is freed (reads and watches go on)",
    );
  });
});
