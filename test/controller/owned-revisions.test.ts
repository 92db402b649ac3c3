import { describe, expect, it } from "vitest";
import { OwnedRevisions } from "../../controller/owned-revisions";
import type { ApiObject } from "../../sdk/client/types";
import { KINDS } from "../../sdk/schema";
import { type ObjectStore, openStore } from "../../server/storage";
import { storeCluster } from "./fixtures";

function service(store: ObjectStore, name: string): ApiObject {
  return store.create("Service", {
    apiVersion: KINDS.Service.apiVersion,
    kind: "Service",
    metadata: { name },
    spec: {},
  });
}

function revision(store: ObjectStore, name: string, owner?: ApiObject): ApiObject {
  const ownerReferences = owner && [
    {
      apiVersion: owner.apiVersion,
      kind: "Service",
      name: owner.metadata.name,
      uid: owner.metadata.uid as string,
      controller: true,
    },
  ];
  return store.create("ServiceRevision", {
    apiVersion: KINDS.ServiceRevision.apiVersion,
    kind: "ServiceRevision",
    metadata: { name, ...(ownerReferences && { ownerReferences }) },
    spec: {},
  });
}

/** The index fed by the store's events, as the controller feeds it from the revisions' informer. */
function indexOf(store: ObjectStore): OwnedRevisions {
  const cluster = storeCluster(store);
  const owned = new OwnedRevisions(cluster.revisions);
  cluster.revisions.addHandlers(owned.handlers);
  void cluster.start();
  return owned;
}

const names = (objects: ApiObject[]) => objects.map((object) => object.metadata.name).sort();

describe("the index of the revisions each Service controls", () => {
  it("knows the revisions present at start and follows creates and deletes", () => {
    const store = openStore("memory");
    const a = service(store, "a");
    const b = service(store, "b");
    revision(store, "a-1", a);
    const owned = indexOf(store);
    revision(store, "a-2", a);
    revision(store, "b-1", b);
    revision(store, "loose");
    expect(names(owned.of(a))).toEqual(["a-1", "a-2"]);
    expect(names(owned.of(b))).toEqual(["b-1"]);

    store.delete("ServiceRevision", "a-1");
    expect(names(owned.of(a))).toEqual(["a-2"]);
  });

  it("goes by uid: a Service created again under the same name controls none of the old revisions", () => {
    const store = openStore("memory");
    const first = service(store, "web");
    revision(store, "web-1", first);
    const owned = indexOf(store);
    store.delete("Service", "web");
    const second = service(store, "web");
    expect(owned.of(second)).toEqual([]);
    expect(names(owned.of(first))).toEqual(["web-1"]);
  });

  it("follows a revision whose controller changes", () => {
    const store = openStore("memory");
    const a = service(store, "a");
    const b = service(store, "b");
    const owned = indexOf(store);
    const moved = revision(store, "r", a);
    store.update("ServiceRevision", {
      ...moved,
      metadata: {
        ...moved.metadata,
        ownerReferences: [
          {
            apiVersion: b.apiVersion,
            kind: "Service",
            name: "b",
            uid: b.metadata.uid as string,
            controller: true,
          },
        ],
      },
    });
    expect(owned.of(a)).toEqual([]);
    expect(names(owned.of(b))).toEqual(["r"]);
  });
});
