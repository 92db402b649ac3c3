import { Config } from "@pulumi/pulumi/cmd/dynamic-provider/config";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resourceProvider } from "../../provider";
import type { ObjectInputs, ObjectOutputs } from "../../provider/state";
import type { KindName } from "../../sdk/schema";
import {
  checked,
  configureProvider,
  created,
  declared,
  freshProvider,
  type ProviderConfig,
  providerOf,
  rejection,
  startLoopbackProxy,
  useProxiedServer,
} from "../helpers/provider";
import { pathOf } from "../helpers/server";
import { proxyWithKeys, REPO, SECRETS } from "./fixtures";

const runtime = { compatibilityDate: "2026-01-01" };
const DIGEST = `sha256:${"5eed".repeat(16)}`;

describe("server dry run at preview (exampledev:serverDryRun)", () => {
  const env = useProxiedServer();
  afterEach(() => vi.unstubAllEnvs());

  /** The provider pointed at a recording proxy in front of the server, with the dry run on. */
  async function dryRunning(extra: ProviderConfig = {}) {
    const seen = await env.through();
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverDryRun": "true", ...extra });
    return seen;
  }

  const check = (kind: KindName, news: ObjectInputs, olds: Partial<ObjectInputs> = {}) =>
    providerOf(kind).check(olds, news);
  const diff = async (
    kind: KindName,
    state: ObjectOutputs,
    spec: unknown,
    metadata: ObjectInputs["metadata"],
  ) =>
    providerOf(kind).diff(
      state.metadata.name,
      state,
      await checked(kind, declared(state.logicalName, spec, { metadata }), state),
    );

  it("works offline without an API address, as without the setting", async () => {
    vi.stubEnv("EXAMPLEDEV_BASE_URL", "");
    await configureProvider({ "exampledev:serverDryRun": "true" });
    const result = await check("Proxy", declared("edge", {}, { metadata: { name: "offline" } }));
    expect(result.failures).toEqual([]);
  });

  it("asks the API about a new resource's create in check, and writes nothing", async () => {
    const seen = await dryRunning();
    const version = env.server.store.resourceVersion();
    const result = await check("Proxy", declared("edge", proxyWithKeys(), { metadata: { name: "valid" } }));
    expect(result.failures).toEqual([]);
    const [post] = seen.seen("POST", pathOf("Proxy"));
    expect(post?.path).toContain("dryRun=All");
    expect(post?.status).toBe(201);
    expect(env.server.store.resourceVersion()).toBe(version);
    await expect(env.api.proxies.get("valid")).rejects.toThrow(/not found/i);
  });

  it("fails check on a name another stack's object holds, with the API's AlreadyExists", async () => {
    await env.api.proxies.create({ metadata: { name: "taken" }, spec: {} });
    await dryRunning();
    const result = await check("Proxy", declared("edge", {}, { metadata: { name: "taken" } }));
    expect(result.failures).toEqual([
      {
        property: "",
        reason: expect.stringMatching(/server dry run.*Proxy "taken" already exists.*409 AlreadyExists/),
      },
    ]);
    expect(result.failures?.[0]?.reason).toContain("adopt: true");
  });

  it("passes check on a taken name with adopt: true, asking the API about the takeover", async () => {
    await env.api.proxies.create({ metadata: { name: "to-adopt" }, spec: {} });
    const seen = await dryRunning();
    const version = env.server.store.resourceVersion();
    const result = await check(
      "Proxy",
      declared("edge", {}, { metadata: { name: "to-adopt" }, adopt: true }),
    );
    expect(result.failures).toEqual([]);
    expect(seen.seen("PUT", pathOf("Proxy", "to-adopt"))[0]?.path).toContain("dryRun=All");
    expect(env.server.store.resourceVersion()).toBe(version);
  });

  it("fails check on what the API refuses when validation is left to the policy pack, naming its causes", async () => {
    await dryRunning({ "exampledev:deferValidationToPolicies": "true" });
    const spec = proxyWithKeys({ drainTimeout: "90s", minimumDrainTime: "10s" });
    const result = await check("Proxy", declared("edge", spec, { metadata: { name: "invalid" } }));
    expect(result.failures).toHaveLength(1);
    const reason = result.failures?.[0]?.reason ?? "";
    expect(reason).toContain("422 Invalid");
    expect(reason).toContain("spec.shutdown.minimumDrainTime");
    for (const secret of Object.values(SECRETS)) expect(reason).not.toContain(secret);
  });

  it("reports the schema's message alone for a spec the schema refuses, not the API's answer beside it", async () => {
    await dryRunning();
    const spec = proxyWithKeys({ drainTimeout: "90s", minimumDrainTime: "10s" });
    const result = await check("Proxy", declared("edge", spec, { metadata: { name: "invalid" } }));
    expect(result.failures).toHaveLength(1);
    const reason = result.failures?.[0]?.reason ?? "";
    expect(reason).toContain("spec.shutdown.minimumDrainTime");
    expect(reason).not.toContain("server dry run");
  });

  it("asks nothing while a value is unknown (preview of a value from another resource)", async () => {
    const seen = await dryRunning();
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const spec = { shutdown: { drainTimeout: unknown } };
    // Named: an unnamed object's check asks which generated name is free, whatever is unknown.
    const result = await check("Proxy", declared("edge", spec, { metadata: { name: "unknown-spec" } }));
    expect(result.failures).toEqual([]);
    // Only the one look at the API (reachable, the credentials taken) that a preview asking it makes.
    expect(seen.exchanges.map(({ method }) => method)).toEqual(["GET"]);
  });

  it("asks nothing with serverDryRun false: a fully offline preview", async () => {
    const seen = await env.through();
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverDryRun": "false" });
    await check("Proxy", declared("edge", {}, { metadata: { name: "quiet" } }));
    expect(seen.exchanges).toEqual([]);
  });

  it("asks by default once an API address is set, but not with deferValidationToPolicies", async () => {
    const seen = await env.through();
    const provider = resourceProvider("Proxy");
    await provider.configure({ config: new Config({ "exampledev:baseUrl": seen.url }, "dry-run-tests") });
    const asked = await provider.check({}, declared("edge", {}, { metadata: { name: "asked" } }));
    expect(asked.failures).toEqual([]);
    expect(seen.seen("POST", pathOf("Proxy"))[0]?.path).toContain("dryRun=All");

    const pack = resourceProvider("Proxy");
    const config = { "exampledev:baseUrl": seen.url, "exampledev:deferValidationToPolicies": "true" };
    await pack.configure({ config: new Config(config, "dry-run-tests") });
    const before = seen.exchanges.length;
    await pack.check({}, declared("edge", {}, { metadata: { name: "pull-request" } }));
    expect(seen.exchanges.length).toBe(before);
  });

  it("asks the API about an update in diff, and fails it with the API's reason", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: state } = await created("Proxy", declared("edge", {}, { metadata: { name: "updated" } }));
    const seen = await dryRunning({ "exampledev:deferValidationToPolicies": "true" });
    const version = env.server.store.resourceVersion();

    const valid = await diff("Proxy", state, { shutdown: { drainTimeout: "10s" } }, { name: "updated" });
    expect(valid).toMatchObject({ changes: true, replaces: [] });
    expect(seen.seen("PUT", pathOf("Proxy", "updated"))[0]?.path).toContain("dryRun=All");

    const error = await rejection(
      diff(
        "Proxy",
        state,
        { shutdown: { drainTimeout: "90s", minimumDrainTime: "10s" } },
        { name: "updated" },
      ),
    );
    expect(error.message).toMatch(/Proxy "updated": the update failed: .*server dry run.*422 Invalid/);
    expect(error.message).toContain("spec.shutdown.minimumDrainTime");
    expect(env.server.store.resourceVersion()).toBe(version);
  });

  it("fails diff when the object under the name is no longer the one this stack manages", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: state } = await created("Proxy", declared("edge", {}, { metadata: { name: "swapped" } }));
    await env.api.proxies.delete("swapped");
    await env.api.proxies.waitFor("swapped", (object) => object === undefined, {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    await env.api.proxies.create({ metadata: { name: "swapped" }, spec: {} });
    await dryRunning();
    const error = await rejection(
      diff("Proxy", state, { shutdown: { drainTimeout: "10s" } }, { name: "swapped" }),
    );
    expect(error.message).toContain("is not the object this stack manages");
  });

  it("asks about the replacement's create under a new name, and leaves a same-name replacement to the schema", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: state } = await created("Proxy", declared("edge", {}, { metadata: { name: "renamed" } }));
    await env.api.proxies.create({ metadata: { name: "renamed-taken" }, spec: {} });
    await dryRunning();
    const error = await rejection(diff("Proxy", state, {}, { name: "renamed-taken" }));
    expect(error.message).toMatch(/the create of the replacement failed: .*already exists/);
    const free = await diff("Proxy", state, {}, { name: "renamed-free" });
    expect(free).toMatchObject({ changes: true, replaces: ["metadata.name"], deleteBeforeReplace: false });

    // A ServiceRevision's spec cannot change: the provider replaces it under the same name, deleting first.
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const revisionSpec = { runtime, bundle: { repo: REPO, digest: DIGEST } };
    const { outs: revision } = await created(
      "ServiceRevision",
      declared("rev", revisionSpec, { metadata: { name: "immutable-rev" } }),
    );
    const seen = await dryRunning();
    const replaced = await diff(
      "ServiceRevision",
      revision,
      { ...revisionSpec, runtime: { ...runtime, timeout: "10s" } },
      { name: "immutable-rev" },
    );
    expect(replaced).toMatchObject({ changes: true, replaces: ["spec"], deleteBeforeReplace: true });
    expect(seen.exchanges.filter(({ method }) => method !== "GET")).toEqual([]);
  });

  it("with server-side apply, asks by apply: a field another manager owns fails diff naming it", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url, "exampledev:serverSideApply": "true" });
    const { outs: state } = await created(
      "Proxy",
      declared(
        "edge",
        { shutdown: { drainTimeout: "20s", minimumDrainTime: "40s" } },
        { metadata: { name: "owned" } },
      ),
    );
    const reply = await env.server.call(
      "PATCH",
      `${pathOf("Proxy", "owned")}?fieldManager=kubectl&force=true`,
      {
        body: {
          apiVersion: "core.example.dev/v1alpha2",
          kind: "Proxy",
          metadata: { name: "owned" },
          spec: { shutdown: { drainTimeout: "25s" } },
        },
        contentType: "application/apply-patch+yaml",
      },
    );
    expect(reply.status).toBe(200);
    const seen = await dryRunning({ "exampledev:serverSideApply": "true" });
    const version = env.server.store.resourceVersion();
    const error = await rejection(
      diff("Proxy", state, { shutdown: { drainTimeout: "10s", minimumDrainTime: "40s" } }, { name: "owned" }),
    );
    expect(error.message).toContain('conflict with "kubectl"');
    expect(error.message).toContain(".spec.shutdown.drainTimeout");
    const applies = seen.seen("PATCH", pathOf("Proxy", "owned"));
    expect(applies.every((exchange) => exchange.path.includes("dryRun=All"))).toBe(true);
    expect(env.server.store.resourceVersion()).toBe(version);

    // A new resource's create is asked as it will be made: by POST (no apply only creates).
    const created201 = await check("Proxy", declared("edge", {}, { metadata: { name: "ssa-new" } }));
    expect(created201.failures).toEqual([]);
    const [create] = seen.seen("POST", pathOf("Proxy"));
    expect(create?.path).toContain("dryRun=All");
    expect(create?.status).toBe(201);
    const taken = await check("Proxy", declared("edge", {}, { metadata: { name: "owned" } }));
    expect(taken.failures?.[0]?.reason).toContain('Proxy "owned" already exists on the server');
    expect(env.server.store.resourceVersion()).toBe(version);
  });

  it("asks nothing in a refresh's diff (refreshed outputs against stored inputs, no check in the process)", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url, "exampledev:serverSideApply": "true" });
    const { inputs, outs } = await created(
      "Proxy",
      declared(
        "edge",
        { shutdown: { drainTimeout: "20s", minimumDrainTime: "40s" } },
        { metadata: { name: "refreshed" } },
      ),
    );
    const reply = await env.server.call(
      "PATCH",
      `${pathOf("Proxy", "refreshed")}?fieldManager=kubectl&force=true`,
      {
        body: {
          apiVersion: "core.example.dev/v1alpha2",
          kind: "Proxy",
          metadata: { name: "refreshed" },
          spec: { shutdown: { drainTimeout: "25s" } },
        },
        contentType: "application/apply-patch+yaml",
      },
    );
    expect(reply.status).toBe(200);
    const config = { "exampledev:serverSideApply": "true" };
    const seen = await dryRunning(config);
    // `pulumi refresh` runs in a fresh provider process: read, then diff (outputs as olds, stored inputs as news).
    const refreshing = await freshProvider("Proxy", {
      "exampledev:baseUrl": seen.url,
      "exampledev:serverDryRun": "true",
      ...config,
    });
    const read = await refreshing.read("refreshed", outs);
    const result = await refreshing.diff("refreshed", read.props as ObjectOutputs, inputs);
    expect(result).toMatchObject({ changes: true, replaces: [] });
    expect(seen.seen("PATCH", pathOf("Proxy", "refreshed"))).toEqual([]);

    // The same diff of the program's checked inputs (preview, up) asks, and fails on the conflict.
    const news = await refreshing.check(inputs, declared("edge", inputs.spec, { metadata: inputs.metadata }));
    const error = await rejection(
      refreshing.diff("refreshed", read.props as ObjectOutputs, news.inputs as ObjectInputs),
    );
    expect(error.message).toContain('conflict with "kubectl"');
  });

  it("fails a preview that cannot reach the API, naming the address's setting and variable", async () => {
    const closed = await startLoopbackProxy(env.server.url);
    const url = closed.url;
    await closed.close();
    await configureProvider({
      "exampledev:baseUrl": url,
      "exampledev:serverDryRun": "true",
      "exampledev:requestTimeoutSeconds": "2",
    });
    const result = await check("Proxy", declared("edge", {}, { metadata: { name: "unreachable" } }));
    const reason = result.failures?.[0]?.reason ?? "";
    expect(reason).toMatch(/^cannot reach the API at http:\/\/127\.0\.0\.1:\d+: /);
    expect(reason).toContain("the stack config exampledev:baseUrl");
    expect(reason).toContain("EXAMPLEDEV_BASE_URL");
  });
});
