import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApiObject } from "../../../sdk/client/types";
import { KINDS, type KindName } from "../../../sdk/schema";
import { terminate } from "../../../server/lifecycle";
import { wouldCreate, wouldDelete, wouldUpdate } from "../../../server/resources/dry-run";
import { Store } from "../../../server/storage/store";
import { KINDS_UNDER_TEST, SPEC_CHANGES, VALID_SPECS } from "../../api/fixtures";

// A dry run answers what the write would store: the same storage functions build both. Each case asks the
// dry run first (it changes nothing), then makes the write, and compares the answer with what the store
// then holds (or, for a removal, with what the removal reported). The clock is pinned, so timestamps agree;
// what may differ is only what a commit assigns: the resourceVersion (a dry run uses none: a create has
// none, an update or deletion answers the stored one) and, on create, the uid (made up for the answer).

const NOW = new Date("2026-11-25T05:00:00Z");

let store: Store;
beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
  store = new Store();
});
afterEach(() => {
  vi.useRealTimers();
});

/** An object as admission hands it to the store: client metadata only. */
function admitted(kind: KindName, name: string, metadata: ApiObject["metadata"] = { name }) {
  return {
    apiVersion: KINDS[kind].apiVersion,
    kind,
    metadata: { ...metadata, name },
    spec: structuredClone(VALID_SPECS[kind]),
  };
}

function without(object: ApiObject, ...fields: ("uid" | "resourceVersion")[]): ApiObject {
  const metadata = { ...object.metadata };
  for (const field of fields) delete metadata[field];
  return { ...object, metadata };
}

/** The store's object after `write`, compared with the dry run's answer for it. */
function expectSameAsCommit(dryRun: ApiObject, kind: KindName, name: string, write: () => unknown) {
  const version = store.resourceVersion();
  write();
  const stored = store.get(kind, name) as ApiObject;
  expect(store.resourceVersion()).not.toBe(version);
  expect(without(dryRun, "resourceVersion")).toEqual(without(stored, "resourceVersion"));
  // The key order too: the answer is serialized as the stored object would be.
  expect(Object.keys(dryRun.metadata)).toEqual(Object.keys(stored.metadata));
}

describe.each(KINDS_UNDER_TEST)("%s: dry run and commit agree", (kind) => {
  it("create", () => {
    const object = admitted(kind, "web", { name: "web", labels: { app: "web" }, finalizers: ["x/hold"] });
    const dryRun = wouldCreate(kind, store, object);
    expect(dryRun.metadata.resourceVersion).toBeUndefined();
    store.create(kind, object);
    const stored = store.get(kind, "web") as ApiObject;
    expect(without(dryRun, "uid")).toEqual(without(stored, "uid", "resourceVersion"));
    expect(Object.keys(dryRun.metadata)).toEqual(Object.keys(without(stored, "resourceVersion").metadata));
  });

  it("update: labels, and the spec where the kind lets it change", () => {
    const { resourceVersion } = store.create(kind, admitted(kind, "web")).metadata;
    const next = admitted(kind, "web", { name: "web", resourceVersion, labels: { tier: "edge" } });
    if (kind !== "ServiceRevision") next.spec = { ...next.spec, ...SPEC_CHANGES[kind] };
    const dryRun = wouldUpdate(kind, store, next);
    expect(dryRun.metadata.resourceVersion).toBe(resourceVersion);
    expectSameAsCommit(dryRun, kind, "web", () => store.update(kind, next));
  });

  it("delete: what the deletion removes or marks", () => {
    const existing = store.create(kind, admitted(kind, "web"));
    const dryRun = wouldDelete(kind, store, existing, {});
    const version = store.resourceVersion();
    const real = terminate(store, kind, existing, {});
    expect(real && { gone: real.gone, object: without(real.object, "resourceVersion") }).toEqual({
      gone: dryRun.gone,
      object: without(dryRun.object, "resourceVersion"),
    });
    expect(store.resourceVersion()).not.toBe(version);
    // No finalizer holds it (a Proxy's drain finalizer comes from admission, not from the store).
    expect(dryRun.gone).toBe(true);
  });

  it("delete of an object a finalizer holds: the mark", () => {
    const existing = store.create(kind, admitted(kind, "web", { name: "web", finalizers: ["x/hold"] }));
    const dryRun = wouldDelete(kind, store, existing, { propagationPolicy: "Foreground" });
    expect(dryRun.gone).toBe(false);
    expectSameAsCommit(dryRun.object, kind, "web", () =>
      terminate(store, kind, existing, { propagationPolicy: "Foreground" }),
    );
  });
});

describe("a deletion a finalizer holds: dry run and commit agree", () => {
  const deleteProxy = () => {
    const existing = store.get("Proxy", "edge") as ApiObject;
    const dryRun = wouldDelete("Proxy", store, existing, {});
    expectSameAsCommit(dryRun.object, "Proxy", "edge", () => terminate(store, "Proxy", existing, {}));
    return dryRun.object.metadata;
  };

  beforeEach(() => {
    store.create(
      "Proxy",
      admitted("Proxy", "edge", { name: "edge", finalizers: ["core.example.dev/drain"] }),
    );
  });

  it("marks it with a grace of 0 (as kube-apiserver marks a custom resource)", () => {
    expect(deleteProxy()).toMatchObject({
      deletionTimestamp: NOW.toISOString().replace(".000", ""),
      deletionGracePeriodSeconds: 0,
      finalizers: ["core.example.dev/drain"],
    });
  });

  it("a later delete changes nothing", () => {
    deleteProxy();
    const before = store.resourceVersion();
    const existing = store.get("Proxy", "edge") as ApiObject;
    expect(wouldDelete("Proxy", store, existing, {}).object).toEqual(existing);
    expect(terminate(store, "Proxy", existing, {})?.object).toEqual(existing);
    expect(store.resourceVersion()).toBe(before);
  });
});
