import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { ApiObject } from "../../../sdk/client/types";
import { KINDS, type KindName } from "../../../sdk/schema";
import { terminate } from "../../../server/lifecycle";
import { wouldCreate, wouldUpdate } from "../../../server/resources/dry-run";
import { Store } from "../../../server/storage/store";
import { KINDS_UNDER_TEST, VALID_SPECS } from "../../api/fixtures";

// Where the dry run used to rebuild the store's objects by hand and answer something else than the commit
// stores (issue 23, point 3). Only the functions both versions have, so the cases run against the old code.

let store: Store;
beforeEach(() => {
  store = new Store();
});

function admitted(kind: KindName, metadata: ApiObject["metadata"]): ApiObject {
  return { apiVersion: KINDS[kind].apiVersion, kind, metadata, spec: structuredClone(VALID_SPECS[kind]) };
}

describe.each(KINDS_UNDER_TEST)("%s", (kind) => {
  it("a dry-run create drops a deletionGracePeriodSeconds it is given, as the create does", () => {
    const object = admitted(kind, { name: "web", deletionGracePeriodSeconds: 30 });
    expect(wouldCreate(kind, store, object).metadata).not.toHaveProperty("deletionGracePeriodSeconds");
    expect(store.create(kind, object).metadata).not.toHaveProperty("deletionGracePeriodSeconds");
  });
});

describe("a dry-run update of a terminating Proxy", () => {
  beforeEach(() => {
    const existing = store.create(
      "Proxy",
      admitted("Proxy", { name: "edge", finalizers: ["example.dev/hold"] }),
    );
    // The mark records a grace of 0, as kube-apiserver records it for a custom resource.
    terminate(store, "Proxy", existing, {});
  });

  const next = (deletionGracePeriodSeconds?: number) => {
    const { resourceVersion } = (store.get("Proxy", "edge") as ApiObject).metadata;
    const metadata = {
      name: "edge",
      resourceVersion,
      labels: { updated: "yes" },
      finalizers: ["example.dev/hold"],
    };
    return admitted("Proxy", {
      ...metadata,
      ...(deletionGracePeriodSeconds && { deletionGracePeriodSeconds }),
    });
  };

  it("keeps the stored grace when the update names none (as admission hands every update over)", () => {
    expect(wouldUpdate("Proxy", store, next()).metadata.deletionGracePeriodSeconds).toBe(0);
    expect(store.update("Proxy", next()).metadata.deletionGracePeriodSeconds).toBe(0);
  });

  it("cannot lengthen the grace, as the update cannot", () => {
    expect(wouldUpdate("Proxy", store, next(60)).metadata.deletionGracePeriodSeconds).toBe(0);
    expect(store.update("Proxy", next(60)).metadata.deletionGracePeriodSeconds).toBe(0);
  });
});

it("the dry run reaches the storage layer only through storage/index", () => {
  const source = readFileSync(join(__dirname, "../../../server/resources/dry-run.ts"), "utf8");
  expect(source.match(/from "\.\.\/storage\/[^"]*"/g) ?? []).toEqual([]);
});
