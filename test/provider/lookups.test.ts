// The provider's half of lookups (provider/lookups.ts): the read of a `get` (a state holding only the provider's
// source) and the functions' Lookups, against the local server.
import { type JavaScriptValue, Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Lookups } from "../../provider/lookups";
import type { ObjectOutputs } from "../../provider/state";
import { configureProvider, created, declared, providerOf, rejection } from "../helpers/provider";
import { startTestServer, type TestServer } from "../helpers/server";
import { digestService, proxyWithKeys, REPO, SECRETS } from "./fixtures";

const PROVIDER = "exports.handler = () => undefined;";

describe("lookups", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ logLevel: "warn" });
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => configureProvider({ "exampledev:baseUrl": server.url }));

  const lookupState = { __provider: PROVIDER } as unknown as ObjectOutputs;

  it("reads the object under the name for a get, without a uid or create token, and keeps the provider", async () => {
    const { outs } = await created(
      "Proxy",
      declared("edge", proxyWithKeys(), { metadata: { name: "looked-up" } }),
    );
    const result = await providerOf("Proxy").read("looked-up", lookupState);
    expect(result.id).toBe("looked-up");
    expect(() => Struct.fromJavaScript(result.props as Record<string, JavaScriptValue>)).not.toThrow();
    expect(result).not.toHaveProperty("inputs");
    const props = result.props as ObjectOutputs;
    expect(props.__provider).toBe(PROVIDER);
    expect(props.metadata).toMatchObject({ name: "looked-up", uid: outs.metadata.uid });
    expect(props.metadata).not.toHaveProperty("managedFields");
    const text = JSON.stringify(props);
    expect(text).toContain("<API_KEY>");
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });

  it("gives a Service's revisions beside status, as the class reads them", async () => {
    await created(
      "Service",
      declared("svc", digestService(REPO), { metadata: { name: "looked-up-svc" }, await: { skip: true } }),
    );
    const result = await providerOf("Service").read("looked-up-svc", lookupState);
    expect(result.props).toHaveProperty("__latestRevision");
    expect(result.props).toHaveProperty("__liveRevision");
  });

  it("fails a get of a missing object naming the kind, the name and the API", async () => {
    const error = await rejection(providerOf("Service").read("nowhere", lookupState));
    expect(error.message).toBe(`no Service "nowhere" at ${server.url}`);
  });

  it("Lookups get and list with the provider's settings; a missing name fails naming it", async () => {
    const lookups = Lookups.fromConfig({
      get: (key) => (key === "exampledev:baseUrl" ? server.url : undefined),
    });
    try {
      const proxy = await lookups.get("Proxy", "looked-up");
      expect(proxy.spec).toMatchObject({ shutdown: { drainTimeout: "20s" } });
      await expect(lookups.get("Proxy", "nope")).rejects.toThrow(`no Proxy "nope" at ${server.url}`);
      const names = (await lookups.list("Proxy")).map((item) => item.metadata.name);
      expect(names).toContain("looked-up");
      expect(await lookups.list("Proxy", { labelSelector: "no=match" })).toEqual([]);
    } finally {
      await lookups.close();
    }
  });
});
