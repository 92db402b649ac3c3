import { describe, expect, it } from "vitest";
import type { ObjectInputs, ObjectOutputs } from "../../provider/state";
import { applyDefaults, type KindName, UNKNOWN } from "../../sdk/schema";
import { checked, type DeclaredOptions, declared, providerOf } from "../helpers/provider";
import { DIGEST, digestService, REPO, RUNTIME } from "./fixtures";

const NAME = "thing";

/** State as after a create: the checked inputs, with what the server added. */
function stateOf(inputs: ObjectInputs): ObjectOutputs {
  return {
    ...inputs,
    metadata: { ...inputs.metadata, uid: "u-1", resourceVersion: "7", generation: 1 },
    status: {},
  };
}

/** diff(state of `before`, check of `after`), as `pulumi preview` runs it for a changed program. */
async function diffOf(
  kind: KindName,
  before: unknown,
  after: unknown,
  options: DeclaredOptions = {},
  next = options,
) {
  const olds = await checked(kind, declared("thing", before, { metadata: { name: NAME }, ...options }));
  const news = await checked(kind, declared("thing", after, { metadata: { name: NAME }, ...next }), olds);
  return providerOf(kind).diff(NAME, stateOf(olds), news);
}

const filterService = digestService(REPO, "hello", { filter: { phase: "response" } });
const revision = (greeting: string) => ({
  runtime: RUNTIME,
  bundle: { repo: REPO, digest: DIGEST },
  env: [{ name: "GREETING", value: greeting }],
});

describe("diff", () => {
  it("never reports defaults as a change: the program leaving them out equals state holding them", async () => {
    const spec = digestService(REPO);
    const explicit = applyDefaults("Service", spec);
    expect(await diffOf("Service", explicit, spec)).toMatchObject({ changes: false, replaces: [] });
    expect(await diffOf("Service", spec, explicit)).toMatchObject({ changes: false, replaces: [] });
    expect(await diffOf("Proxy", {}, { provider: "cloud", shutdown: { drainTimeout: "30s" } })).toMatchObject(
      {
        changes: false,
      },
    );
  });

  it("reports no change for an unchanged program", async () => {
    expect(await diffOf("ServiceRevision", revision("hi"), revision("hi"))).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("replaces an object whose name changes, creating the new one before deleting the old", async () => {
    const olds = await checked("Proxy", declared("edge", {}, { metadata: { name: "edge-a" } }));
    const news = await checked("Proxy", declared("edge", {}, { metadata: { name: "edge-b" } }), olds);
    expect(await providerOf("Proxy").diff("edge-a", stateOf(olds), news)).toEqual({
      changes: true,
      replaces: ["metadata.name"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces a ServiceRevision on any spec change, deleting first since the name stays", async () => {
    const result = await diffOf("ServiceRevision", revision("hi"), revision("bye"));
    expect(result).toMatchObject({ changes: true, deleteBeforeReplace: true });
    expect(result.replaces?.length).toBeGreaterThan(0);
  });

  it.each([
    ["backend to filter", digestService(REPO), filterService],
    ["filter to backend", filterService, digestService(REPO)],
  ])("replaces a Service that switches from %s mode (deleting first)", async (_case, before, after) => {
    const result = await diffOf("Service", before, after);
    expect(result).toMatchObject({ changes: true, deleteBeforeReplace: true });
    expect(result.replaces?.length).toBeGreaterThan(0);
  });

  it("updates a Service in place when its template changes within the same mode", async () => {
    expect(await diffOf("Service", digestService(REPO, "hi"), digestService(REPO, "bye"))).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it.each([
    [
      "a label",
      { metadata: { name: NAME, labels: { tier: "edge" } } },
      { metadata: { name: NAME, labels: { tier: "core" } } },
    ],
    [
      "an annotation",
      { metadata: { name: NAME } },
      { metadata: { name: NAME, annotations: { "example.dev/owner": "me" } } },
    ],
  ] as const)("updates in place, without replacement, when only %s changes", async (_case, before, after) => {
    for (const [kind, spec] of [
      ["Proxy", {}],
      ["ServiceRevision", revision("hi")],
    ] as const) {
      expect(await diffOf(kind, spec, spec, before, after)).toEqual({
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
    }
  });

  it("reports no change when only the await settings or adopt change (nothing on the server would)", async () => {
    const spec = digestService(REPO);
    const result = await diffOf(
      "Service",
      spec,
      spec,
      { await: { timeoutSeconds: 60 } },
      { await: { skip: true }, adopt: true },
    );
    expect(result.changes).toBe(false);
  });

  it("reports an unknown value in the new spec as a change, and does not replace a Service for it", async () => {
    const result = await diffOf("Service", digestService(REPO, "hi"), digestService(REPO, UNKNOWN));
    expect(result).toMatchObject({ changes: true, replaces: [] });
  });
});
