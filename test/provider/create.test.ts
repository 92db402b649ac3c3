import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Client, createClient } from "../../sdk/client";
import { serviceOutputs, serviceRevisionOutputs } from "../../sdk/resources/kind-outputs";
import {
  checked,
  configureProvider,
  created,
  declared,
  providerOf,
  rejection,
  SERIALIZED_PROVIDER,
  type SilentRegistry,
  startLoopbackProxy,
  startSilentRegistry,
  statusBody,
} from "../helpers/provider";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { pathOf, startTestServer, type TestServer } from "../helpers/server";
import {
  DIGEST,
  digestService,
  proxyWithKeys,
  REPO,
  revisionWithCredentials,
  SECRETS,
  taggedService,
} from "./fixtures";

const AWAIT = { timeoutSeconds: 30 };

describe("create", () => {
  let server: TestServer;
  let registry: Registry;
  let api: Client;
  let repo: string;

  beforeAll(async () => {
    [server, registry] = await Promise.all([startTestServer({ logLevel: "warn" }), startRegistry()]);
    api = createClient({ baseUrl: server.url });
    repo = registry.repo("team/app");
    await pushArtifact(registry, { path: "team/app", tag: "v1", content: "bundle one" });
  });
  afterAll(async () => {
    await api?.close();
    await Promise.all([server?.close(), registry?.stop()]);
  });
  beforeEach(() => configureProvider({ "exampledev:baseUrl": server.url }));

  it("waits for the controller, and outputs the revision it minted, the live one and egress readiness", async () => {
    const { id, inputs, outs } = await created(
      "Service",
      declared("api", digestService(repo), { metadata: { name: "api" }, await: AWAIT }),
    );
    const stored = await api.services.get("api");
    expect(id).toBe("api");
    expect(outs.status.latestRevision).toMatch(/^api-[0-9a-f]{10}$/);
    expect(serviceOutputs(outs.status)).toMatchObject({
      latestRevision: stored.status?.latestRevision,
      liveRevision: stored.status?.latestRevision,
      egressReady: true,
    });
    expect(outs).toMatchObject({
      spec: inputs.spec,
      metadata: { name: "api", uid: stored.metadata.uid, generation: 1 },
      status: { observedGeneration: 1 },
      __provider: SERIALIZED_PROVIDER,
    });
    const revision = await api.serviceRevisions.get(outs.status.latestRevision as string);
    expect(revision.spec.bundle).toMatchObject({ repo, digest: DIGEST });
  });

  it("resolves a tag through the registry and outputs the revision pinned to its digest", async () => {
    const digest = await pushArtifact(registry, { path: "team/app", tag: "v2", content: "bundle two" });
    const { outs } = await created(
      "Service",
      declared("tagged", taggedService(repo, "v2"), { await: AWAIT }),
    );
    const revision = await api.serviceRevisions.get(outs.status.latestRevision as string);
    expect(revision.spec.bundle).toMatchObject({ repo, digest });
  });

  it("reports a dangling egress gateway as egressReady false, not as a failure", async () => {
    const spec = digestService(repo, "hello", { egress: { gatewayRef: "nowhere" } });
    const { outs } = await created("Service", declared("egress", spec, { await: AWAIT }));
    expect(serviceOutputs(outs.status).egressReady).toBe(false);
    expect(outs.status.latestRevision).toBeDefined();
  });

  it("fails with the controller's message when the tag is not in the registry, keeping the object as partially created", async () => {
    const spec = taggedService(repo, "no-such-tag");
    const credentials = { username: "robot", password: SECRETS.password, refreshToken: SECRETS.refreshToken };
    const withCredentials = { ...spec, source: { oci: { ...spec.source.oci, credentials } } };
    const error = await rejection(
      created(
        "Service",
        declared("missing", withCredentials, { metadata: { name: "missing" }, await: AWAIT }),
      ),
    );
    const stored = await api.services.get("missing");
    const accepted = stored.status?.conditions?.find((condition) => condition.type === "Accepted");
    expect(accepted).toMatchObject({ status: "False", reason: "BundleResolutionFailed" });
    expect(error.message).toContain(accepted?.message);
    expect(error.message).toContain('Service "missing"');
    expect(error.id).toBe("missing");
    expect(error.properties).toMatchObject({
      __provider: SERIALIZED_PROVIDER,
      metadata: { name: "missing", uid: stored.metadata.uid },
      spec: { source: { oci: { tag: "no-such-tag" } } },
      status: {
        conditions: expect.arrayContaining([expect.objectContaining({ reason: "BundleResolutionFailed" })]),
      },
    });
    expect(error.reasons).toEqual([expect.stringContaining(accepted?.message as string)]);
    for (const secret of Object.values(SECRETS)) expect(error.message).not.toContain(secret);

    // What Pulumi recorded is enough to carry on: fixing the tag updates the same object.
    const fixed = await checked(
      "Service",
      declared("missing", taggedService(repo, "v1"), { metadata: { name: "missing" }, await: AWAIT }),
    );
    const { outs } = await providerOf("Service").update("missing", error.properties as never, fixed);
    expect(outs.status.latestRevision).toMatch(/^missing-[0-9a-f]{10}$/);
    expect(outs.metadata.uid).toBe(stored.metadata.uid);
  });

  it("after a partial create for a tag not pushed yet, succeeds on the next up once the tag is pushed", async () => {
    // A registry that answers slowly: the controller's verdict on the update comes well after its PUT.
    const slowRegistry = await startLoopbackProxy(registry.url, async (_request, forward) => {
      await delay(300);
      return forward();
    });
    try {
      const slowRepo = `${new URL(slowRegistry.url).host}/team/app`;
      const inputs = await checked(
        "Service",
        declared("early", taggedService(slowRepo, "later"), { await: AWAIT }),
      );
      const error = await rejection(providerOf("Service").create(inputs));
      expect(error.message).toContain("the registry has no such manifest");
      const digest = await pushArtifact(registry, {
        path: "team/app",
        tag: "later",
        content: "bundle pushed later",
      });

      // Pulumi updates a resource recorded with initialisation errors, with the unchanged program's inputs:
      // the spec (and so the generation) stays the same, and the failure reported for it is the old one.
      const { outs } = await providerOf("Service").update(
        error.id as string,
        error.properties as never,
        inputs,
      );
      const revision = await api.serviceRevisions.get(outs.status.latestRevision as string);
      expect(revision.spec.bundle).toMatchObject({ repo: slowRepo, digest });
    } finally {
      await slowRegistry.close();
    }
  });

  it("keeps a created Service as partially created when awaiting it fails for another reason (the API erroring)", async () => {
    const erroring = await startLoopbackProxy(server.url, async (request, forward) =>
      request.method === "GET"
        ? { status: 500, body: statusBody(500, "InternalError", "the store is unavailable") }
        : forward(),
    );
    try {
      await configureProvider({ "exampledev:baseUrl": erroring.url });
      const error = await rejection(
        created(
          "Service",
          declared("orphan", digestService(repo), { metadata: { name: "orphan" }, await: AWAIT }),
        ),
      );
      expect(erroring.seen("POST", pathOf("Service")).map((exchange) => exchange.status)).toEqual([201]);
      expect(error.message).toContain("500");
      expect(error.id).toBe("orphan");
      expect(error.properties).toMatchObject({
        __provider: SERIALIZED_PROVIDER,
        metadata: { name: "orphan" },
      });
    } finally {
      await erroring.close();
    }
  });

  it("refuses to take over an object that already exists, explaining `adopt: true`", async () => {
    const existing = await api.proxies.create({ metadata: { name: "taken" }, spec: { provider: "aws" } });
    const error = await rejection(created("Proxy", declared("edge", {}, { metadata: { name: "taken" } })));
    expect(error.message).toContain('Proxy "taken"');
    expect(error.message).toContain("adopt: true");
    expect(error.id).toBeUndefined();
    const after = await api.proxies.get("taken");
    expect(after.metadata.resourceVersion).toBe(existing.metadata.resourceVersion);
    expect(after.spec.provider).toBe("aws");
  });

  it("with `adopt: true` takes the existing object over, replacing its spec and labels with the program's", async () => {
    const existing = await api.services.create({
      metadata: { name: "adopted", labels: { owner: "someone-else" } },
      spec: digestService(repo, "theirs"),
    });
    const { outs } = await created(
      "Service",
      declared("adopted", digestService(repo, "ours"), {
        metadata: { name: "adopted", labels: { owner: "us" } },
        adopt: true,
        await: AWAIT,
      }),
    );
    const after = await api.services.get("adopted");
    expect(after.metadata.uid).toBe(existing.metadata.uid);
    expect(after.metadata.labels).toEqual({ owner: "us" });
    expect(after.spec.template.spec.env).toEqual([{ name: "GREETING", value: "ours" }]);
    expect(outs).toMatchObject({
      metadata: { uid: existing.metadata.uid, generation: 2 },
      status: { latestRevision: after.status?.latestRevision },
    });
    const revision = await api.serviceRevisions.get(outs.status.latestRevision as string);
    expect(revision.spec.env).toEqual([{ name: "GREETING", value: "ours" }]);
  });

  it("creates a Proxy, keeping the declared secrets in its outputs where the server only has placeholders", async () => {
    const { outs } = await created("Proxy", declared("edge", proxyWithKeys()));
    const stored = await api.proxies.get(outs.metadata.name);
    expect(stored.spec.telemetry?.thirdPartySinks?.vendorAlphaLogs?.key).toBe("<API_KEY>");
    expect(outs.spec).toMatchObject({
      telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: SECRETS.apiKey } } },
    });
    expect(outs.metadata).toMatchObject({
      uid: stored.metadata.uid,
      resourceVersion: stored.metadata.resourceVersion,
    });
  });

  it("creates a ServiceRevision whose stored spec gives its bundle digest", async () => {
    const { outs } = await created("ServiceRevision", declared("manual", revisionWithCredentials(REPO)));
    expect(serviceRevisionOutputs(outs.spec).bundleDigest).toBe(DIGEST);
    expect(outs.spec).toMatchObject({ bundle: { credentials: { password: SECRETS.password } } });
  });

  it("creates an auto-named object of a very long logical name that read and delete can reach afterwards", async () => {
    const { id, outs } = await created("Proxy", declared("p".repeat(300), {}));
    const read = await providerOf("Proxy").read(id, outs);
    expect(read.id).toBe(id);
    await providerOf("Proxy").delete(id, outs);
    expect(await api.proxies.listAll()).not.toContainEqual(
      expect.objectContaining({ metadata: expect.objectContaining({ name: id }) }),
    );
  });
});

describe("create while the controller cannot settle the Service (its registry never answers)", () => {
  let server: TestServer;
  let registry: SilentRegistry;

  beforeAll(async () => {
    [server, registry] = await Promise.all([startTestServer({ logLevel: "warn" }), startSilentRegistry()]);
  });
  afterAll(async () => {
    await server?.close();
    await registry?.close();
  });
  beforeEach(() => configureProvider({ "exampledev:baseUrl": server.url }));

  it("returns as soon as the API stored the Service when await.skip is set", async () => {
    const { outs } = await created(
      "Service",
      declared("skipped", taggedService(`${registry.host}/team/app`, "v1"), { await: { skip: true } }),
    );
    expect(outs.metadata.uid).toBeDefined();
    expect(outs.status.latestRevision).toBeUndefined();
    expect(outs.status).not.toHaveProperty("observedGeneration");
  });

  it("fails after await.timeoutSeconds as partially created, saying what it waited for", async () => {
    const error = await rejection(
      created(
        "Service",
        declared("slow", taggedService(`${registry.host}/team/app`, "v1"), {
          metadata: { name: "slow" },
          await: { timeoutSeconds: 1 },
        }),
      ),
    );
    expect(error.message).toContain('Service "slow"');
    expect(error.message).toMatch(/timed out after 1s waiting for the controller to accept generation 1/);
    expect(error.id).toBe("slow");
    expect(error.properties).toMatchObject({
      __provider: SERIALIZED_PROVIDER,
      metadata: { name: "slow", generation: 1 },
    });
    expect((await server.call("GET", pathOf("Service", "slow"))).status).toBe(200);
  });
});
