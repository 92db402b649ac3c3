import { describe, expect, it } from "vitest";
import type { ObjectOutputs } from "../../provider/state";
import { CREATE_TOKEN_ANNOTATION } from "../../sdk/client";
import type { KindName } from "../../sdk/schema";
import {
  checked,
  configureProvider,
  created,
  type DeclaredOptions,
  declared,
  type Outputs,
  providerOf,
  rejection,
  SERIALIZED_PROVIDER,
  useProxiedServer,
} from "../helpers/provider";
import { pathOf } from "../helpers/server";
import { digestService, REPO, revisionWithCredentials, taggedService } from "./fixtures";

const AWAIT = { timeoutSeconds: 30 };

describe("update", () => {
  const env = useProxiedServer();
  const { through } = env;

  /** check then update, as `pulumi up` does for a changed program. */
  async function updated(kind: KindName, state: ObjectOutputs, spec: unknown, options: DeclaredOptions) {
    const news = await checked(kind, declared(state.logicalName, spec, options), state);
    return (await providerOf(kind).update(state.metadata.name, state, news)).outs as Outputs;
  }

  /** A concurrent writer: labels the object through the real API, moving its resourceVersion on. */
  const touch = (kind: KindName, name: string) =>
    env.server.call("PATCH", pathOf(kind, name), {
      body: { metadata: { annotations: { "example.dev/touched": String(Date.now()) } } },
      contentType: "application/merge-patch+json",
    });

  it("sends the full declared object with the resourceVersion it has just read", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: state } = await created("Proxy", declared("edge", {}, { metadata: { name: "edge" } }));
    await touch("Proxy", "edge");
    const seen = await through();

    const outs = await updated(
      "Proxy",
      state,
      { shutdown: { drainTimeout: "10s" } },
      { metadata: { name: "edge", labels: { tier: "edge" } } },
    );
    const [get] = seen.seen("GET", pathOf("Proxy", "edge"));
    const [put] = seen.seen("PUT", pathOf("Proxy", "edge"));
    const read = get?.responseBody as { metadata: { resourceVersion: string } };
    expect(read.metadata.resourceVersion).not.toBe(state.metadata.resourceVersion);
    expect(put?.path).toContain("fieldValidation=Strict");
    expect(JSON.parse(put?.requestBody ?? "{}")).toEqual({
      apiVersion: "core.example.dev/v1alpha2",
      kind: "Proxy",
      metadata: {
        name: "edge",
        labels: { tier: "edge" },
        // The create's token stays on the object: it is the provider's, not drift.
        annotations: { [CREATE_TOKEN_ANNOTATION]: state.createToken },
        resourceVersion: read.metadata.resourceVersion,
      },
      spec: { provider: "cloud", shutdown: { drainTimeout: "10s", minimumDrainTime: "30s" } },
    });
    const stored = await env.api.proxies.get("edge");
    expect(stored.metadata.annotations).toEqual({ [CREATE_TOKEN_ANNOTATION]: state.createToken });
    expect(outs.metadata.annotations).toBeUndefined();
    expect(outs.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect(outs.spec.shutdown).toEqual(stored.spec.shutdown);
  });

  it("re-reads and retries when a concurrent write makes its PUT conflict", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: state } = await created("Proxy", declared("racy", {}, { metadata: { name: "racy" } }));
    let raced = false;
    const seen = await through(async (request, forward) => {
      if (request.method === "PUT" && !raced) {
        raced = true;
        await touch("Proxy", "racy");
      }
      return forward();
    });

    const outs = await updated("Proxy", state, { provider: "aws" }, { metadata: { name: "racy" } });
    const puts = seen.seen("PUT", pathOf("Proxy", "racy"));
    expect(puts.map((put) => put.status)).toEqual([409, 200]);
    expect(puts[0]?.responseBody).toMatchObject({ kind: "Status", code: 409, reason: "Conflict" });
    const gets = seen.seen("GET", pathOf("Proxy", "racy"));
    const reread = gets[1]?.responseBody as { metadata: { resourceVersion: string } };
    expect(JSON.parse(puts[1]?.requestBody ?? "{}").metadata.resourceVersion).toBe(
      reread.metadata.resourceVersion,
    );
    const stored = await env.api.proxies.get("racy");
    expect(stored.spec.provider).toBe("aws");
    expect(outs.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  });

  it("gives up after a bounded number of conflicts, naming the object and the conflict", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: state } = await created(
      "Proxy",
      declared("contended", {}, { metadata: { name: "contended" } }),
    );
    const seen = await through(async (request, forward) => {
      if (request.method === "PUT") await touch("Proxy", "contended");
      return forward();
    });

    const error = await rejection(
      updated("Proxy", state, { provider: "aws" }, { metadata: { name: "contended" } }),
    );
    expect(error.message).toContain('Proxy "contended"');
    expect(error.message).toContain("409 Conflict");
    const puts = seen.seen("PUT", pathOf("Proxy", "contended"));
    expect(puts.length).toBeGreaterThan(1);
    expect(puts.every((put) => put.status === 409)).toBe(true);
    expect((await env.api.proxies.get("contended")).spec.provider).toBe("cloud");
  });

  it("waits for the controller on a Service update, so latestRevision is the revision minted for it", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const options = { metadata: { name: "api" }, await: AWAIT };
    const { outs: first } = await created("Service", declared("api", digestService(REPO, "hello"), options));
    const seen = await through();

    const outs = await updated("Service", first, digestService(REPO, "bonjour"), options);
    const put = seen.seen("PUT", pathOf("Service", "api"))[0]?.responseBody as {
      status: { latestRevision: string };
    };
    // The PUT's answer still carries the status of the previous generation: only waiting gets the new one.
    expect(put.status.latestRevision).toBe(first.status.latestRevision);
    expect(outs.status.latestRevision).not.toBe(first.status.latestRevision);
    expect(outs).toMatchObject({ metadata: { generation: 2 }, status: { observedGeneration: 2 } });
    expect(outs.status.liveRevision).toBe(outs.status.latestRevision);
    const revision = await env.api.serviceRevisions.get(outs.status.latestRevision as string);
    expect(revision.spec.env).toEqual([{ name: "GREETING", value: "bonjour" }]);
  });

  it("keeps the revision when only a Service's labels change (no new generation)", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: first } = await created(
      "Service",
      declared("labelled", digestService(REPO), { await: AWAIT }),
    );
    const outs = await updated("Service", first, digestService(REPO), {
      metadata: { labels: { team: "core" } },
      await: AWAIT,
    });
    expect(outs.metadata).toMatchObject({
      name: first.metadata.name,
      generation: 1,
      labels: { team: "core" },
    });
    expect(outs.status.latestRevision).toBe(first.status.latestRevision);
  });

  it("fails a Service update the controller rejects as partially updated, keeping the object in state", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const options = { metadata: { name: "retagged" }, await: AWAIT };
    const { outs: first } = await created("Service", declared("retagged", digestService(REPO), options));
    // REPO's registry address has nothing listening: the controller reports the resolution failure.
    const error = await rejection(updated("Service", first, taggedService(REPO, "v1"), options));
    expect(error.message).toMatch(/BundleResolutionFailed|cannot resolve tag/);
    expect(error.id).toBe("retagged");
    expect(error.properties).toMatchObject({ __provider: SERIALIZED_PROVIDER, metadata: { generation: 2 } });
  });

  it("fails an update that pins liveRevision to a revision that does not exist, with the controller's message", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const options = { metadata: { name: "rolled-back" }, await: AWAIT };
    const { outs: first } = await created("Service", declared("rolled-back", digestService(REPO), options));
    const pinned = { ...digestService(REPO), liveRevision: "rolled-back-typo" };
    const error = await rejection(updated("Service", first, pinned, options));
    expect(error.message).toContain('Service "rolled-back" was written but did not become ready');
    expect(error.message).toContain('"rolled-back-typo", which does not exist');
    expect(error.id).toBe("rolled-back");
  });

  it("updates the labels of a ServiceRevision in place", async () => {
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const spec = revisionWithCredentials(REPO);
    const { outs: state } = await created("ServiceRevision", declared("manual", spec));
    const outs = await updated("ServiceRevision", state, spec, { metadata: { labels: { stage: "canary" } } });
    expect((await env.api.serviceRevisions.get(state.metadata.name)).metadata.labels).toMatchObject({
      stage: "canary",
    });
    expect(outs.metadata.uid).toBe(state.metadata.uid);
  });
});
