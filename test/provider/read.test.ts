import { type JavaScriptValue, Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ObjectOutputs } from "../../provider/state";
import { type Client, createClient } from "../../sdk/client";
import { type KindName, PLACEHOLDERS } from "../../sdk/schema";
import { checked, configureProvider, created, declared, type Outputs, providerOf } from "../helpers/provider";
import { startTestServer, type TestServer } from "../helpers/server";
import { digestService, gitService, proxyWithKeys, REPO, revisionWithCredentials, SECRETS } from "./fixtures";

const AWAIT = { timeoutSeconds: 30 };

describe("read (refresh)", () => {
  let server: TestServer;
  let api: Client;

  beforeAll(async () => {
    server = await startTestServer({ logLevel: "warn" });
    api = createClient({ baseUrl: server.url });
  });
  afterAll(async () => {
    await api?.close();
    await server?.close();
  });
  beforeEach(() => configureProvider({ "exampledev:baseUrl": server.url }));

  const read = async (kind: KindName, state: ObjectOutputs) => {
    const result = await providerOf(kind).read(state.metadata.name, state);
    // The dynamic-provider host sends the properties as a protobuf Struct, which refuses undefined values.
    expect(() => Struct.fromJavaScript(result.props as Record<string, JavaScriptValue>)).not.toThrow();
    return { id: result.id, props: result.props as Outputs };
  };

  /** diff(refreshed state, the unchanged program): what the next `pulumi up` would do. */
  const diffAfter = async (kind: KindName, refreshed: ObjectOutputs, spec: unknown) => {
    const news = await checked(kind, declared(refreshed.logicalName, spec), refreshed);
    return providerOf(kind).diff(refreshed.metadata.name, refreshed, news);
  };

  it("refreshes an object the program named, whose inputs carry no logical name", async () => {
    const { outs: state } = await created(
      "Proxy",
      declared("named", {}, { metadata: { name: "named-edge" } }),
    );
    expect(state).not.toHaveProperty("logicalName");
    const { id, props } = await read("Proxy", state);
    expect(id).toBe("named-edge");
    expect(props).not.toHaveProperty("logicalName");
  });

  it("maps the server's object to outputs: metadata, status and the Service's revisions", async () => {
    const { outs: state } = await created("Service", declared("api", digestService(REPO), { await: AWAIT }));
    await api.services.patch(
      state.metadata.name,
      { metadata: { labels: { added: "by-hand" } } },
      { type: "merge" },
    );
    const { id, props } = await read("Service", state);
    const stored = await api.services.get(state.metadata.name);
    expect(id).toBe(state.metadata.name);
    expect(props).toMatchObject({
      metadata: {
        name: stored.metadata.name,
        uid: stored.metadata.uid,
        resourceVersion: stored.metadata.resourceVersion,
        generation: stored.metadata.generation,
        creationTimestamp: stored.metadata.creationTimestamp,
        labels: { added: "by-hand" },
      },
      status: stored.status,
      spec: state.spec,
      logicalName: "api",
    });
    // The derived outputs are not stored: the resource classes compute them from status.
    expect(props).not.toHaveProperty("latestRevision");
  });

  it("keeps the secrets from state where the server answers with placeholders: not drift", async () => {
    const spec = proxyWithKeys();
    const { outs: state } = await created("Proxy", declared("edge", spec));
    const stored = await api.proxies.get(state.metadata.name);
    expect(stored.spec.telemetry?.thirdPartySinks?.vendorBetaTraces?.keyData).toBe(PLACEHOLDERS.apiKey);

    const { props } = await read("Proxy", state);
    expect(props.spec).toEqual(state.spec);
    expect(await diffAfter("Proxy", props, spec)).toMatchObject({ changes: false });
  });

  it("does not take the server's move of a write-only password to passwordData for drift", async () => {
    const spec = revisionWithCredentials(REPO);
    const { outs: state } = await created("ServiceRevision", declared("manual", spec));
    const stored = await api.serviceRevisions.get(state.metadata.name);
    expect(stored.spec.bundle.credentials).toEqual({
      username: "robot",
      passwordData: PLACEHOLDERS.passwordData,
      refreshToken: PLACEHOLDERS.refreshToken,
    });

    const { props } = await read("ServiceRevision", state);
    expect(props.spec).toEqual(state.spec);
    expect(await diffAfter("ServiceRevision", props, spec)).toMatchObject({ changes: false, replaces: [] });
  });

  it("reports an out-of-band change as drift: the server's spec, with the secrets filled in from state", async () => {
    const spec = proxyWithKeys();
    const { outs: state } = await created("Proxy", declared("edge", spec));
    await api.proxies.patch(
      state.metadata.name,
      { spec: { shutdown: { drainTimeout: "25s" } } },
      { type: "merge" },
    );

    const { props } = await read("Proxy", state);
    expect(props.spec).toEqual({
      ...state.spec,
      shutdown: { drainTimeout: "25s", minimumDrainTime: "40s" },
    });
    expect(JSON.stringify(props)).not.toContain("<API_KEY>");
    expect(props.spec).toMatchObject({
      telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: SECRETS.apiKey } } },
    });
    expect(await diffAfter("Proxy", props, spec)).toMatchObject({ changes: true, replaces: [] });
  });

  it("reports the object as gone when another object (another uid) took its name", async () => {
    const { outs: state } = await created(
      "Service",
      declared("recreated", digestService(REPO), { await: AWAIT }),
    );
    expect(state.status.latestRevision).toBeDefined();
    // Someone deletes the Service out of band and creates another under the name: not this stack's object.
    const name = state.metadata.name;
    await api.services.delete(name);
    await api.services.create({ metadata: { name }, spec: gitService() });
    await server.idle();

    expect(await read("Service", state)).toEqual({ id: "", props: {} });
  });

  it("reports an object deleted out of band as gone", async () => {
    const { outs: state } = await created(
      "Service",
      declared("doomed", digestService(REPO), { await: AWAIT }),
    );
    await api.services.delete(state.metadata.name);
    expect((await read("Service", state)).id).toBe("");
  });
});
