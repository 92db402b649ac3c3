import { describe, expect, it } from "vitest";
import { FIELD_MANAGER } from "../../provider/apply";
import type { ObjectOutputs } from "../../provider/state";
import { ConflictError, CREATE_TOKEN_ANNOTATION, createClient } from "../../sdk/client";
import type { KindName } from "../../sdk/schema";
import {
  checked,
  configureProvider,
  created,
  type DeclaredOptions,
  declared,
  type Outputs,
  type ProviderConfig,
  providerOf,
  rejection,
  useProxiedServer,
} from "../helpers/provider";
import { pathOf } from "../helpers/server";
import { digestService, proxyWithKeys, REPO, SECRETS } from "./fixtures";

const AWAIT = { timeoutSeconds: 30 };
const APPLY = "application/apply-patch+yaml";
const PROXY_VERSION = "core.example.dev/v1alpha2";

describe("server-side apply (exampledev:serverSideApply)", () => {
  const env = useProxiedServer();
  const { through } = env;

  const ssa = (extra: ProviderConfig = {}) =>
    configureProvider({
      "exampledev:baseUrl": env.server.url,
      "exampledev:serverSideApply": "true",
      ...extra,
    });

  /** check then update, as `pulumi up` does for a changed program. */
  async function updated(kind: KindName, state: ObjectOutputs, spec: unknown, options: DeclaredOptions) {
    const news = await checked(kind, declared(state.logicalName, spec, options), state);
    return (await providerOf(kind).update(state.metadata.name, state, news)).outs as Outputs;
  }

  /** What another tool does: a server-side apply under its own field manager. */
  async function applyAs(manager: string, name: string, body: object, force = false) {
    const reply = await env.server.call(
      "PATCH",
      `${pathOf("Proxy", name)}?fieldManager=${manager}${force ? "&force=true" : ""}`,
      { body: { apiVersion: PROXY_VERSION, kind: "Proxy", metadata: { name }, ...body }, contentType: APPLY },
    );
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
    return reply.body;
  }

  const managers = async (name: string) =>
    (await env.api.proxies.get(name)).metadata.managedFields?.map(({ manager, operation }) => ({
      manager,
      operation,
    }));

  it("creates by POST as pulumi-exampledev with the create token, then makes the entry its apply's", async () => {
    await ssa();
    const seen = await through();
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverSideApply": "true" });
    const { outs } = await created(
      "Proxy",
      declared("edge", proxyWithKeys(), { metadata: { name: "ssa-create", labels: { tier: "edge" } } }),
    );

    // No apply creates only (one naming a uid no object has is refused, as kube-apiserver refuses it): POST.
    const [post] = seen.seen("POST", pathOf("Proxy"));
    expect(post?.path).toContain(`fieldManager=${FIELD_MANAGER}`);
    expect(post?.path).toContain("fieldValidation=Strict");
    expect(post?.status).toBe(201);
    const body = JSON.parse(post?.requestBody ?? "{}");
    expect(body.metadata).toEqual({
      name: "ssa-create",
      labels: { tier: "edge" },
      annotations: { [CREATE_TOKEN_ANNOTATION]: outs.createToken },
    });
    // Then one merge patch of managedFields, and no apply.
    expect(seen.seen("PATCH", pathOf("Proxy", "ssa-create")).map(({ status }) => status)).toEqual([200]);

    const stored = await env.api.proxies.get("ssa-create");
    expect(outs.metadata.uid).toBe(stored.metadata.uid);
    expect(stored.metadata.managedFields?.map((entry) => [entry.manager, entry.operation])).toEqual([
      [FIELD_MANAGER, "Apply"],
    ]);
    // managedFields is the server's bookkeeping: never an output.
    expect(JSON.stringify(outs)).not.toContain("managedFields");
    expect(outs.metadata.annotations).toBeUndefined();
    expect(outs.spec).toEqual(body.spec);
  });

  it("never merges into an object of the same name it did not create: 'already exists', the object untouched", async () => {
    await env.api.proxies.create({ metadata: { name: "theirs", labels: { owner: "them" } }, spec: {} });
    const before = await env.api.proxies.get("theirs");
    await ssa();
    const error = await rejection(
      created("Proxy", declared("theirs", {}, { metadata: { name: "theirs", labels: { owner: "us" } } })),
    );
    expect(error.message).toContain(
      'Proxy "theirs" already exists on the server and is not managed by this stack',
    );
    expect(error.message).toContain("adopt: true");
    expect(await env.api.proxies.get("theirs")).toEqual(before);
  });

  it("adopts with adopt: true, taking over the fields the program declares (forced)", async () => {
    await applyAs("kubectl", "adopted", {
      metadata: { labels: { owner: "kubectl", keep: "yes" } },
      spec: { shutdown: { drainTimeout: "25s" } },
    });
    await ssa();
    const { outs } = await created(
      "Proxy",
      declared(
        "adopted",
        { shutdown: { drainTimeout: "10s" } },
        {
          metadata: { name: "adopted", labels: { owner: "pulumi" } },
          adopt: true,
        },
      ),
    );
    const stored = await env.api.proxies.get("adopted");
    expect(stored.metadata.uid).toBe(outs.metadata.uid);
    expect(stored.metadata.labels).toEqual({ owner: "pulumi", keep: "yes" });
    expect(stored.metadata.annotations?.[CREATE_TOKEN_ANNOTATION]).toBe(outs.createToken);
    expect(stored.spec.shutdown.drainTimeout).toBe("10s");
  });

  it("recognises its own create after a lost answer, by the token", async () => {
    await ssa();
    let lost = false;
    const seen = await through(async (request, forward) => {
      const answer = await forward();
      if (request.method === "POST" && !lost) {
        lost = true;
        return { status: 0, reset: true };
      }
      return answer;
    });
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverSideApply": "true" });
    const { outs } = await created("Proxy", declared("lost", {}, { metadata: { name: "lost-answer" } }));
    const stored = await env.api.proxies.get("lost-answer");
    expect(outs.metadata.uid).toBe(stored.metadata.uid);
    expect(outs.createToken).toBe(stored.metadata.annotations?.[CREATE_TOKEN_ANNOTATION]);
    // The POST is replayed; the replay meets the stored object (409 AlreadyExists), recognised by its token.
    expect(seen.seen("POST", pathOf("Proxy")).map((exchange) => exchange.status)).toEqual([0, 409]);
  });

  it("leaves a label another manager set alone on update, and refresh does not see it as drift", async () => {
    await ssa();
    const { outs: state } = await created(
      "Proxy",
      declared("edge", {}, { metadata: { name: "shared-labels", labels: { tier: "edge" } } }),
    );
    await applyAs("kubectl", "shared-labels", { metadata: { labels: { oncall: "team-a" } } });

    const outs = await updated(
      "Proxy",
      state,
      { shutdown: { drainTimeout: "10s" } },
      { metadata: { name: "shared-labels", labels: { tier: "edge", zone: "eu" } } },
    );
    const stored = await env.api.proxies.get("shared-labels");
    expect(stored.metadata.labels).toEqual({ tier: "edge", zone: "eu", oncall: "team-a" });
    expect(outs.metadata.labels).toEqual({ tier: "edge", zone: "eu" });

    const read = await providerOf("Proxy").read("shared-labels", outs);
    expect(read.props).toEqual(outs);
    expect(JSON.stringify(read.props)).not.toContain("managedFields");

    // Without server-side apply the provider owns the whole object, and the label is drift.
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const replaced = await providerOf("Proxy").read("shared-labels", outs);
    expect((replaced.props as Outputs).metadata.labels).toEqual({
      tier: "edge",
      zone: "eu",
      oncall: "team-a",
    });
  });

  it("still reports drift on what it manages: a declared label changed or removed by another writer", async () => {
    await ssa();
    const { outs } = await created(
      "Proxy",
      declared("edge", {}, { metadata: { name: "drifted", labels: { tier: "edge", zone: "eu" } } }),
    );
    await env.api.proxies.patch(
      "drifted",
      { metadata: { labels: { tier: "core", zone: null } } },
      { type: "merge" },
    );
    const read = await providerOf("Proxy").read("drifted", outs);
    expect((read.props as Outputs).metadata.labels).toEqual({ tier: "core" });
  });

  it("removes what the program no longer declares (what it applied before), and nothing of others", async () => {
    await ssa();
    const { outs: state } = await created(
      "Proxy",
      declared("edge", {}, { metadata: { name: "shrinking", labels: { tier: "edge", old: "yes" } } }),
    );
    await applyAs("kubectl", "shrinking", { metadata: { labels: { oncall: "team-a" } } });
    await updated("Proxy", state, {}, { metadata: { name: "shrinking", labels: { tier: "edge" } } });
    expect((await env.api.proxies.get("shrinking")).metadata.labels).toEqual({
      tier: "edge",
      oncall: "team-a",
    });
  });

  it("fails an update on a spec field another manager owns, naming the manager, and changes nothing", async () => {
    await ssa();
    const { outs: state } = await created(
      "Proxy",
      declared("edge", proxyWithKeys({ drainTimeout: "20s", minimumDrainTime: "40s" }), {
        metadata: { name: "contested" },
      }),
    );
    await applyAs("kubectl", "contested", { spec: { shutdown: { drainTimeout: "25s" } } }, true);
    const before = await env.api.proxies.get("contested");

    const error = await rejection(
      updated("Proxy", state, proxyWithKeys({ drainTimeout: "10s", minimumDrainTime: "40s" }), {
        metadata: { name: "contested" },
      }),
    );
    expect(error.message).toContain('conflict with "kubectl"');
    expect(error.message).toContain(".spec.shutdown.drainTimeout");
    expect(error.message).toContain("exampledev:serverSideApplyForce");
    expect(error.cause).toBeInstanceOf(ConflictError);
    for (const secret of Object.values(SECRETS)) expect(error.message).not.toContain(secret);
    expect(await env.api.proxies.get("contested")).toEqual(before);

    // With force, the field is taken over.
    await ssa({ "exampledev:serverSideApplyForce": "true" });
    const outs = await updated(
      "Proxy",
      state,
      proxyWithKeys({ drainTimeout: "10s", minimumDrainTime: "40s" }),
      {
        metadata: { name: "contested" },
      },
    );
    const stored = await env.api.proxies.get("contested");
    expect(stored.spec.shutdown.drainTimeout).toBe("10s");
    expect(outs.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect(await managers("contested")).toEqual([{ manager: FIELD_MANAGER, operation: "Apply" }]);
  });

  it("a field another manager set to the same value is shared, not a conflict", async () => {
    await ssa();
    const { outs: state } = await created(
      "Proxy",
      declared(
        "edge",
        { shutdown: { drainTimeout: "20s", minimumDrainTime: "40s" } },
        { metadata: { name: "agreed" } },
      ),
    );
    await applyAs("kubectl", "agreed", { spec: { shutdown: { drainTimeout: "20s" } } });
    await updated(
      "Proxy",
      state,
      { shutdown: { drainTimeout: "20s", minimumDrainTime: "50s" } },
      {
        metadata: { name: "agreed" },
      },
    );
    expect((await env.api.proxies.get("agreed")).spec.shutdown).toEqual({
      drainTimeout: "20s",
      minimumDrainTime: "50s",
    });
  });

  it("writes only the object this stack manages: one created again outside Pulumi is refused by uid", async () => {
    await ssa();
    const { outs: state } = await created("Proxy", declared("edge", {}, { metadata: { name: "reborn" } }));
    await env.api.proxies.delete("reborn");
    await env.api.proxies.waitFor("reborn", (object) => object === undefined, {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    await env.api.proxies.create({ metadata: { name: "reborn" }, spec: {} });
    const before = await env.api.proxies.get("reborn");

    const error = await rejection(
      updated("Proxy", state, { shutdown: { drainTimeout: "5s" } }, { metadata: { name: "reborn" } }),
    );
    expect(error.message).toContain("is not the object this stack manages");
    expect(await env.api.proxies.get("reborn")).toEqual(before);
  });

  it("sends the uid and the resourceVersion just read, so an object deleted meanwhile is not created again", async () => {
    await ssa();
    const { outs: state } = await created("Proxy", declared("edge", {}, { metadata: { name: "vanishing" } }));
    const seen = await through(async (request, forward) => {
      if (request.method === "PATCH" && request.path.includes("vanishing")) {
        await env.api.proxies.delete("vanishing");
        await env.api.proxies.waitFor("vanishing", (object) => object === undefined, {
          timeoutMs: 10_000,
          intervalMs: 20,
        });
      }
      return forward();
    });
    await configureProvider({ "exampledev:baseUrl": seen.url, "exampledev:serverSideApply": "true" });
    const error = await rejection(
      updated("Proxy", state, { shutdown: { drainTimeout: "5s" } }, { metadata: { name: "vanishing" } }),
    );
    expect(error.message).toContain("no longer exists on the server");
    const [apply] = seen.seen("PATCH", pathOf("Proxy", "vanishing"));
    expect(JSON.parse(apply?.requestBody ?? "{}").metadata).toMatchObject({
      uid: state.metadata.uid,
      resourceVersion: expect.any(String),
    });
    expect(apply?.status).toBe(409);
    await expect(env.api.proxies.get("vanishing")).rejects.toThrow(/not found/i);
  });

  it("moves a resource written by PUT (setting off, or an older provider) to apply, so dropped fields go", async () => {
    // An older provider wrote without a field manager ("unknown"); this one, with the setting off, as pulumi-exampledev.
    const legacy = createClient({ baseUrl: env.server.url });
    const object = await legacy.proxies.create({
      metadata: { name: "legacy", labels: { tier: "edge", old: "yes" } },
      spec: { shutdown: { drainTimeout: "20s" } },
    });
    await legacy.close();
    await configureProvider({ "exampledev:baseUrl": env.server.url });
    const { outs: adopted } = await created(
      "Proxy",
      declared(
        "legacy",
        { shutdown: { drainTimeout: "20s" } },
        {
          metadata: { name: "legacy", labels: { tier: "edge", old: "yes", put: "yes" } },
          adopt: true,
        },
      ),
    );
    expect(adopted.metadata.uid).toBe(object.metadata.uid);
    // In time order, then name order (as Kubernetes sorts them): the two writes may share a second.
    const legacyManagers = await managers("legacy");
    expect(legacyManagers).toHaveLength(2);
    expect(legacyManagers).toEqual(
      expect.arrayContaining([
        { manager: "unknown", operation: "Update" },
        { manager: FIELD_MANAGER, operation: "Update" },
      ]),
    );

    await ssa();
    await updated(
      "Proxy",
      adopted,
      { shutdown: { drainTimeout: "10s" } },
      {
        metadata: { name: "legacy", labels: { tier: "edge" } },
      },
    );
    const stored = await env.api.proxies.get("legacy");
    expect(stored.metadata.labels).toEqual({ tier: "edge" });
    expect(stored.spec.shutdown.drainTimeout).toBe("10s");
    expect(await managers("legacy")).toEqual([{ manager: FIELD_MANAGER, operation: "Apply" }]);
  });

  it("creates and updates a Service, waiting for the controller as with PUT", async () => {
    await ssa();
    const { outs: state } = await created(
      "Service",
      declared("api", digestService(REPO), { metadata: { name: "ssa-api" }, await: AWAIT }),
    );
    expect(state.status.latestRevision).toMatch(/^ssa-api-[0-9a-f]{10}$/);
    const outs = await updated("Service", state, digestService(REPO, "bonjour"), {
      metadata: { name: "ssa-api" },
      await: AWAIT,
    });
    expect(outs.status.latestRevision).toMatch(/^ssa-api-[0-9a-f]{10}$/);
    expect(outs.status.latestRevision).not.toBe(state.status.latestRevision);
    expect(outs.metadata.generation).toBe(2);
  });

  it("keeps secrets out of state drift: refresh after an apply with secrets is no change", async () => {
    await ssa();
    const { outs } = await created(
      "Proxy",
      declared("edge", proxyWithKeys(), { metadata: { name: "keys" } }),
    );
    const read = await providerOf("Proxy").read("keys", outs);
    expect(read.props).toEqual(outs);
  });
});
