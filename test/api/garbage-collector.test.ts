import { afterEach, describe, expect, it } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { KINDS, type KindName } from "../../sdk/schema";
import { startGarbageCollector } from "../../server/lifecycle/garbage-collector";
import { type ObjectStore, openStore } from "../../server/storage";

const running: { store: ObjectStore; stop?: () => void }[] = [];
afterEach(() => {
  for (const { store, stop } of running.splice(0)) {
    stop?.();
    store.close();
  }
});

function storeWithCollector(): ObjectStore {
  const store = openStore("memory");
  running.push({ store, stop: startGarbageCollector(store) });
  return store;
}

function put(store: ObjectStore, kind: KindName, name: string, owners: ApiObject[] = []): ApiObject {
  return store.create(kind, {
    apiVersion: KINDS[kind].apiVersion,
    kind,
    metadata: {
      name,
      ...(owners.length > 0 && {
        ownerReferences: owners.map((owner) => ({
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.metadata.name,
          uid: owner.metadata.uid as string,
        })),
      }),
    },
    spec: {},
  });
}

const names = (store: ObjectStore, kind: KindName) => store.list(kind).map((object) => object.metadata.name);

describe("the garbage collector", () => {
  it("deletes a dependent once all of its owners are gone, not before", () => {
    const store = storeWithCollector();
    const web = put(store, "Service", "web");
    const api = put(store, "Service", "api");
    put(store, "ServiceRevision", "shared", [web, api]);
    store.delete("Service", "web");
    expect(names(store, "ServiceRevision")).toEqual(["shared"]);
    store.delete("Service", "api");
    expect(names(store, "ServiceRevision")).toEqual([]);
  });

  it("follows owner references as they are rewritten", () => {
    const store = storeWithCollector();
    const web = put(store, "Service", "web");
    const api = put(store, "Service", "api");
    const revision = put(store, "ServiceRevision", "moved", [web]);
    store.update("ServiceRevision", {
      ...revision,
      metadata: {
        ...revision.metadata,
        ownerReferences: [
          { apiVersion: api.apiVersion, kind: "Service", name: "api", uid: api.metadata.uid as string },
        ],
      },
    });
    store.delete("Service", "web");
    expect(names(store, "ServiceRevision")).toEqual(["moved"]);
    store.delete("Service", "api");
    expect(names(store, "ServiceRevision")).toEqual([]);
  });

  it("cascades through several levels, and to objects of any kind", () => {
    const store = storeWithCollector();
    const root = put(store, "Service", "root");
    const child = put(store, "ServiceRevision", "child", [root]);
    put(store, "Proxy", "grandchild", [child]);
    put(store, "Proxy", "unrelated");
    store.delete("Service", "root");
    expect(names(store, "ServiceRevision")).toEqual([]);
    expect(names(store, "Proxy")).toEqual(["unrelated"]);
  });

  it("deletes an object written with owners that do not exist (a dangling reference)", () => {
    const store = storeWithCollector();
    const web = put(store, "Service", "web");
    store.delete("Service", "web");
    put(store, "ServiceRevision", "dangling", [web]);
    expect(names(store, "ServiceRevision")).toEqual([]);
  });

  it("matches owners by uid: a new incarnation of the owner's name owns nothing of the old one", () => {
    const store = storeWithCollector();
    const first = put(store, "Service", "web");
    put(store, "ServiceRevision", "old", [first]);
    store.delete("Service", "web");
    const second = put(store, "Service", "web");
    put(store, "ServiceRevision", "new", [second]);
    expect(names(store, "ServiceRevision")).toEqual(["new"]);
  });

  it("deletes the dependents of one commit in one more commit", () => {
    const store = storeWithCollector();
    const services = ["a", "b", "c"].map((name) => put(store, "Service", name));
    for (const service of services) put(store, "ServiceRevision", `${service.metadata.name}-r1`, [service]);
    const commits: string[][] = [];
    store.subscribeCommits((events) => commits.push(events.map((event) => event.object.metadata.name)));
    store.deleteMany(services.map(({ metadata: { name } }) => ({ kind: "Service" as const, name })));
    expect(commits).toEqual([
      ["a", "b", "c"],
      ["a-r1", "b-r1", "c-r1"],
    ]);
  });

  it("finishes at start what it finds orphaned, through every level", () => {
    const store = openStore("memory");
    const root = put(store, "Service", "root");
    const child = put(store, "ServiceRevision", "child", [root]);
    put(store, "Proxy", "grandchild", [child]);
    put(store, "Proxy", "kept");
    store.delete("Service", "root");
    expect(names(store, "ServiceRevision")).toEqual(["child"]);
    running.push({ store, stop: startGarbageCollector(store) });
    expect(names(store, "ServiceRevision")).toEqual([]);
    expect(names(store, "Proxy")).toEqual(["kept"]);
  });
});
