// Generated names against a real server: check asks which candidate is free when it asks the API
// (serverDryRun), two checks agree, and a replacement picks the next name while the old object holds its own.
import { afterEach, describe, expect, it, vi } from "vitest";
import { generatedName } from "../../provider/naming";
import type { ObjectInputs, ObjectOutputs } from "../../provider/state";
import { checked, configureProvider, declared, providerOf, useProxiedServer } from "../helpers/provider";
import { pathOf } from "../helpers/server";
import { REPO } from "./fixtures";

const runtime = { compatibilityDate: "2026-01-01" };
const DIGEST = `sha256:${"a11e".repeat(16)}`;
const revisionSpec = { runtime, bundle: { repo: REPO, digest: DIGEST } };
const seedOf = (name: string) =>
  `urn:pulumi:dev::naming::pulumi-nodejs:dynamic/exampledev:ServiceRevision::${name}`;
const unnamed = (logicalName: string, spec: unknown = revisionSpec) =>
  ({ ...declared(logicalName, spec), nameSeed: seedOf(logicalName) }) as ObjectInputs;

describe("generated names against the server", () => {
  const env = useProxiedServer();
  afterEach(() => vi.unstubAllEnvs());

  it("gives the first free candidate, the same in two checks, asking the API only by GET", async () => {
    const seen = await env.through();
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverDryRun": "true" });
    // Another stack's object holds the first candidate.
    await env.api.serviceRevisions.create({
      metadata: { name: generatedName("held", seedOf("held"), 0) },
      spec: revisionSpec,
    });
    const first = await checked("ServiceRevision", unnamed("held"));
    const second = await checked("ServiceRevision", unnamed("held"));
    expect(first.metadata.name).toBe(generatedName("held", seedOf("held"), 1));
    expect(second.metadata.name).toBe(first.metadata.name);
    expect(first).not.toHaveProperty("nameSeed");
    const gets = seen.seen("GET", pathOf("ServiceRevision")).map((exchange) => exchange.path);
    expect(gets).toContain(pathOf("ServiceRevision", generatedName("held", seedOf("held"), 0)));
    expect(gets).toContain(pathOf("ServiceRevision", first.metadata.name));
  });

  it("offline (serverDryRun false), takes the first candidate without asking", async () => {
    const seen = await env.through();
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverDryRun": "false" });
    const inputs = await checked("ServiceRevision", unnamed("offline"));
    expect(inputs.metadata.name).toBe(generatedName("offline", seedOf("offline"), 0));
    expect(seen.exchanges).toEqual([]);
  });

  it.each(["true", "false"])(
    "replaces an unnamed object create-first under the next name (serverDryRun %s), the same in preview and up",
    async (dryRun) => {
      await configureProvider({ "exampledev:baseUrl": env.server.url, "exampledev:serverDryRun": dryRun });
      const logical = `replaced-${dryRun}`;
      const inputs = await checked("ServiceRevision", unnamed(logical));
      const { outs } = await providerOf("ServiceRevision").create(inputs);
      const state = outs as ObjectOutputs;
      const changedSpec = { ...revisionSpec, runtime: { ...runtime, timeout: "45s" } };

      /** What the engine does at preview and again at up: check with olds, diff, check again without olds. */
      const plan = async () => {
        const news = await checked("ServiceRevision", unnamed(logical, changedSpec), inputs);
        const diff = await providerOf("ServiceRevision").diff(state.metadata.name, state, news);
        const replacement = await checked("ServiceRevision", unnamed(logical, changedSpec));
        return { diff, name: replacement.metadata.name };
      };
      const preview = await plan();
      expect(preview.diff).toMatchObject({ changes: true, replaces: ["spec"], deleteBeforeReplace: false });
      expect(preview.name).not.toBe(state.metadata.name);
      expect(preview.name).toMatch(new RegExp(`^${logical}-[0-9a-f]{5}$`));
      const up = await plan();
      expect(up.name).toBe(preview.name);
    },
  );

  it("checks a same-name replacement again without asking the API to create under the name still held", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const named = (spec: unknown) => declared("pinned", spec, { metadata: { name: "pinned-by-name" } });
    const inputs = await checked("ServiceRevision", named(revisionSpec));
    const { outs } = await providerOf("ServiceRevision").create(inputs);
    const state = outs as ObjectOutputs;
    const seen = await env.through();
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverDryRun": "true" });
    const changedSpec = { ...revisionSpec, runtime: { ...runtime, timeout: "45s" } };
    const news = await checked("ServiceRevision", named(changedSpec), inputs);
    const diff = await providerOf("ServiceRevision").diff(state.metadata.name, state, news);
    expect(diff).toMatchObject({ replaces: ["spec"], deleteBeforeReplace: true });
    // The engine's check of the replacement: no olds, and the old object still holds the name until deleted.
    const result = await providerOf("ServiceRevision").check({}, named(changedSpec));
    expect(result.failures).toEqual([]);
    expect(seen.seen("POST", pathOf("ServiceRevision"))).toEqual([]);
  });
});
