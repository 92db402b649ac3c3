// The typed client against the real local API server: the seven operations of each kind, the helpers, and
// the server's errors as typed ApiErrors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  type ApiObject,
  type Client,
  ConflictError,
  createClient,
  GoneError,
  InvalidError,
  NotFoundError,
  type ObjectInput,
  type ResourceClient,
  type ServiceStatus,
  UnauthorizedError,
} from "../../sdk/client";
import type { KindName, ServiceSpecInput } from "../../sdk/schema";
import { startTestServer, type TestServer } from "../helpers/server";
import { KINDS_UNDER_TEST, SECRET_SPECS, SECRETS, SPEC_CHANGES, VALID_SPECS } from "./fixtures";

const TOKEN = "client-test-token-3e1f";

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({ token: TOKEN, drainProxies: true });
  client = createClient({ baseUrl: server.url, token: TOKEN, maxRetries: 0 });
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

type Spec = Record<string, unknown>;
/** Any kind's accessor, with specs as plain records: one test body serves all three kinds. */
type AnyKindClient = ResourceClient<ApiObject<KindName, Spec, ServiceStatus>, ObjectInput<KindName, Spec>>;

function accessor(kind: KindName): AnyKindClient {
  const accessors = {
    Proxy: client.proxies,
    Service: client.services,
    ServiceRevision: client.serviceRevisions,
  };
  return accessors[kind] as unknown as AnyKindClient;
}

const input = (kind: KindName, name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels },
  spec: VALID_SPECS[kind],
});

describe.each(KINDS_UNDER_TEST)("the client's operations on %s", (kind) => {
  const api = () => accessor(kind);
  const name = (suffix: string) => `${kind.toLowerCase()}-${suffix}`;

  it("creates, gets and lists an object", async () => {
    const created = await api().create(input(kind, name("a"), { suite: "read" }), {
      fieldValidation: "Strict",
    });
    expect(created).toMatchObject({ kind, metadata: { name: name("a"), generation: 1 } });
    expect(created.metadata.uid).toBeDefined();

    const fetched = await api().get(name("a"));
    expect(fetched.metadata.uid).toBe(created.metadata.uid);

    const list = await api().list({ labelSelector: "suite=read" });
    expect(list.kind).toBe(`${kind}List`);
    expect(list.items.map((item) => item.metadata.name)).toEqual([name("a")]);
  });

  it("reads every page with listAll", async () => {
    for (const suffix of ["p1", "p2", "p3"])
      await api().create(input(kind, name(suffix), { suite: "pages" }));
    const items = await api().listAll({ labelSelector: "suite=pages", limit: 2 });
    expect(items.map((item) => item.metadata.name)).toEqual([name("p1"), name("p2"), name("p3")]);
  });

  it("replaces with the current resourceVersion, and a stale one is a ConflictError", async () => {
    await api().create(input(kind, name("r")));
    await server.idle();
    const current = await api().get(name("r"));
    const spec = kind === "ServiceRevision" ? current.spec : { ...current.spec, ...SPEC_CHANGES[kind] };
    const replaced = await api().replace(name("r"), {
      metadata: { ...current.metadata, labels: { replaced: "yes" } },
      spec,
    });
    expect(replaced.metadata.labels).toEqual({ replaced: "yes" });

    const stale = await api()
      .replace(name("r"), { metadata: current.metadata, spec })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ConflictError);
    expect(stale).not.toBeInstanceOf(AlreadyExistsError);
    expect((stale as Error).message).toMatch(
      new RegExp(`^${kind} "${name("r")}" conflicts with the stored object`),
    );
  });

  it("patches with a merge patch and with a JSON patch", async () => {
    await api().create(input(kind, name("p"), { step: "0" }));
    const merged = await api().patch(name("p"), { metadata: { labels: { step: "1" } } }, { type: "merge" });
    expect(merged.metadata.labels).toEqual({ step: "1" });
    const patched = await api().patch(
      name("p"),
      [
        { op: "test", path: "/metadata/labels/step", value: "1" },
        { op: "replace", path: "/metadata/labels/step", value: "2" },
      ],
      { type: "json" },
    );
    expect(patched.metadata.labels).toEqual({ step: "2" });
  });

  it("deletes an object and waits until it is gone", async () => {
    await api().create(input(kind, name("d")));
    const deleting = await api().delete(name("d"));
    // A Proxy's deletion is two-phase: it stays visible, marked, until the controller's drain is over.
    if (kind === "Proxy") expect(deleting?.metadata.deletionTimestamp).toBeDefined();
    else expect(deleting).toBeUndefined();
    await expect(
      api().waitFor(name("d"), (object) => object === undefined, { timeoutMs: 5000, intervalMs: 20 }),
    ).resolves.toBeUndefined();
    await expect(api().get(name("d"))).rejects.toBeInstanceOf(NotFoundError);
  });

  it("deletes a collection by label", async () => {
    for (const suffix of ["c1", "c2"]) await api().create(input(kind, name(suffix), { suite: "collection" }));
    await api().create(input(kind, name("kept"), { suite: "kept" }));
    await api().deleteCollection({ labelSelector: "suite=collection" });
    const left = () => api().listAll({ labelSelector: "suite in (collection,kept)" });
    await expect.poll(async () => (await left()).map((item) => item.metadata.name)).toEqual([name("kept")]);
  });

  it("reports a duplicate create as AlreadyExistsError naming the object", async () => {
    await api().create(input(kind, name("dup")));
    const error = await api()
      .create(input(kind, name("dup")))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyExistsError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${kind} "${name("dup")}" already exists \\(409 AlreadyExists\\)`),
    );
  });

  it("reports a rejected spec as InvalidError with field paths, without the request's secrets", async () => {
    const spec = { ...SECRET_SPECS[kind], colour: "blue" };
    const error = await api()
      .create({ metadata: { name: name("bad") }, spec }, { fieldValidation: "Strict" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidError);
    expect((error as InvalidError).causes.map((cause) => cause.field)).toContain("spec.colour");
    expect((error as Error).message).toMatch(
      new RegExp(`^${kind} "${name("bad")}" was rejected \\(422 Invalid\\): .*spec\\.colour`),
    );
    for (const secret of Object.values(SECRETS))
      expect(JSON.stringify([String(error), error])).not.toContain(secret);
  });
});

describe("the client and the server's token", () => {
  it("is refused with UnauthorizedError without the token", async () => {
    const anonymous = createClient({ baseUrl: server.url, maxRetries: 0 });
    try {
      await expect(anonymous.proxies.list()).rejects.toBeInstanceOf(UnauthorizedError);
    } finally {
      await anonymous.close();
    }
  });
});

describe("a Service through the client", () => {
  it("waits for the controller to report the revision it minted", async () => {
    await client.services.create({
      metadata: { name: "minted" },
      spec: VALID_SPECS.Service as ServiceSpecInput,
    });
    const settled = await client.services.waitFor(
      "minted",
      (service) =>
        service?.status?.observedGeneration === service?.metadata.generation &&
        !!service?.status?.latestRevision,
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    expect(settled?.status?.latestRevision).toMatch(/^minted-[0-9a-f]{10}$/);
    const revision = await client.serviceRevisions.get(settled?.status?.latestRevision ?? "");
    expect(revision.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Service", name: "minted" });
  });
});

describe("status through the client's /status subresource", () => {
  const proxy = (name: string) => ({ metadata: { name }, spec: VALID_SPECS.Proxy });

  it("replaceStatus stores only the status, checked against the resourceVersion sent", async () => {
    const created = await client.proxies.create(proxy("status-replace"));
    const written = await client.proxies.replaceStatus("status-replace", {
      ...created,
      metadata: { ...created.metadata, labels: { ignored: "yes" } },
      status: { observedGeneration: 1 },
    });
    expect(written.status).toEqual({ observedGeneration: 1 });
    expect(written.metadata.labels).toBeUndefined();
    expect(written.spec).toEqual(created.spec);
    expect(written.metadata.generation).toBe(created.metadata.generation);

    await expect(client.proxies.replaceStatus("status-replace", created)).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it("patchStatus merges into the status and leaves the spec alone", async () => {
    const created = await client.proxies.create(proxy("status-patch"));
    const patched = await client.proxies.patchStatus(
      "status-patch",
      { spec: { upstream: "ignored" }, status: { observedGeneration: 1 } },
      { type: "merge" },
    );
    expect(patched.status).toEqual({ observedGeneration: 1 });
    expect(patched.spec).toEqual(created.spec);
    await expect(
      client.proxies.patchStatus("status-patch-missing", { status: {} }, { type: "merge" }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("list and watch, as an informer uses them", () => {
  it("watches from a list's resourceVersion: what followed the list, then bookmarks", async () => {
    const watched = await startTestServer({ watch: { bookmarkIntervalMs: 50 } });
    const api = createClient({ baseUrl: watched.url, maxRetries: 0 });
    try {
      await api.proxies.create({ metadata: { name: "before" }, spec: VALID_SPECS.Proxy });
      const list = await api.proxies.list();
      expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
      const stream = await api.proxies.watch({
        resourceVersion: list.metadata.resourceVersion,
        allowWatchBookmarks: true,
      });
      await api.proxies.create({ metadata: { name: "after" }, spec: VALID_SPECS.Proxy });
      const seen: string[] = [];
      for await (const event of stream) {
        seen.push(`${event.type} ${event.object.metadata.name ?? ""}`.trim());
        if (event.type === "BOOKMARK") break;
      }
      stream.close();
      expect(seen).toEqual(["ADDED after", "BOOKMARK"]);
    } finally {
      await api.close();
      await watched.close();
    }
  });

  it("a resourceVersion the server no longer keeps is GoneError: the informer lists again", async () => {
    const watched = await startTestServer({ watch: { historySize: 2 } });
    const api = createClient({ baseUrl: watched.url, maxRetries: 0 });
    try {
      await api.proxies.create({ metadata: { name: "first" }, spec: VALID_SPECS.Proxy });
      const start = (await api.proxies.list()).metadata.resourceVersion;
      for (const name of ["a", "b", "c", "d"]) {
        await api.proxies.create({ metadata: { name }, spec: VALID_SPECS.Proxy });
      }
      const gone = async () => {
        const stream = await api.proxies.watch({ resourceVersion: start });
        for await (const _ of stream) {
          // The ERROR event throws.
        }
      };
      await expect(gone()).rejects.toBeInstanceOf(GoneError);
    } finally {
      await api.close();
      await watched.close();
    }
  });
});
