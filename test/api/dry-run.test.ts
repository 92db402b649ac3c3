import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type KindName, PROXY_DRAIN_FINALIZER } from "../../sdk/schema";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { type OpenWatch, openWatch } from "../helpers/watch";
import { KINDS_UNDER_TEST, SECRET_SPECS, SECRETS, SPEC_CHANGES, VALID_SPECS } from "./fixtures";

// dryRun=All: the request is decoded, admitted, defaulted and answered as if carried out, and nothing
// changes: no write, no resourceVersion used, no event (no watch, no controller, no garbage collector).

describe("dryRun=All", () => {
  let server: TestServer;
  let watches: OpenWatch[];
  beforeEach(async () => {
    server = await startTestServer({ proxyDeletionGraceMs: 60_000 });
    watches = [];
  });
  afterEach(async () => {
    for (const watch of watches) watch.close();
    await server?.close();
  });

  const create = async (kind: KindName, name: string, spec = VALID_SPECS[kind]) => {
    const reply = await server.call("POST", pathOf(kind), { body: manifest(kind, name, spec) });
    expect(reply.status, reply.text).toBe(201);
    await server.idle();
    return (await server.call("GET", pathOf(kind, name))).body;
  };

  /** Runs `act` and checks that it changed nothing at all: the store's version, the objects, the events. */
  const changesNothing = async (act: () => Promise<void>) => {
    const before = server.store.resourceVersion();
    const snapshot = KINDS_UNDER_TEST.map((kind) => server.store.list(kind));
    const streams = await Promise.all(
      KINDS_UNDER_TEST.map((kind) =>
        openWatch(server.url, `${pathOf(kind)}?watch=true&resourceVersion=${before}`),
      ),
    );
    watches.push(...streams);
    await act();
    await server.idle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.store.resourceVersion()).toBe(before);
    expect(KINDS_UNDER_TEST.map((kind) => server.store.list(kind))).toEqual(snapshot);
    for (const stream of streams) expect(stream.events).toEqual([]);
  };

  describe.each(KINDS_UNDER_TEST)("%s", (kind) => {
    it("create: 201 with the admitted, defaulted object, a uid of its own and no resourceVersion", async () => {
      let first: Json = {};
      await changesNothing(async () => {
        const reply = await server.call("POST", `${pathOf(kind)}?dryRun=All`, {
          body: manifest(kind, "dry", VALID_SPECS[kind]),
        });
        expect(reply.status, reply.text).toBe(201);
        first = reply.body;
        const again = await server.call("POST", `${pathOf(kind)}?dryRun=All`, {
          body: manifest(kind, "dry", VALID_SPECS[kind]),
        });
        expect(again.body.metadata.uid).not.toBe(reply.body.metadata.uid);
      });
      expect(first).toMatchObject({ kind, metadata: { name: "dry", generation: 1 } });
      const { metadata } = first;
      expect(metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(metadata.creationTimestamp).toBeDefined();
      expect(metadata.resourceVersion).toBeUndefined();
      // The same defaults a real create applies.
      const real = await server.call("POST", pathOf(kind), {
        body: manifest(kind, "real", VALID_SPECS[kind]),
      });
      expect(first.spec).toEqual(real.body.spec);
      expect((await server.call("GET", pathOf(kind, "dry"))).status).toBe(404);
    });

    it("create: refused as a real create would be (422 invalid, 409 taken)", async () => {
      await create(kind, "taken");
      await changesNothing(async () => {
        const invalid = await server.call("POST", `${pathOf(kind)}?dryRun=All`, {
          body: manifest(kind, "Not_A_Name", VALID_SPECS[kind]),
        });
        expect(invalid.status).toBe(422);
        const taken = await server.call("POST", `${pathOf(kind)}?dryRun=All`, {
          body: manifest(kind, "taken", VALID_SPECS[kind]),
        });
        expect(taken.status).toBe(409);
        expect(taken.body.reason).toBe("AlreadyExists");
      });
    });

    it("update, merge patch and JSON patch: the object as it would be, the stored one untouched", async () => {
      const stored = await create(kind, "web");
      await changesNothing(async () => {
        const put = await server.call("PUT", `${pathOf(kind, "web")}?dryRun=All`, {
          body: { ...stored, metadata: { ...stored.metadata, labels: { dry: "put" } } },
        });
        expect(put.status, put.text).toBe(200);
        expect(put.body.metadata).toMatchObject({
          labels: { dry: "put" },
          uid: stored.metadata.uid,
          resourceVersion: stored.metadata.resourceVersion,
          generation: stored.metadata.generation,
        });
        const merge = await server.call("PATCH", `${pathOf(kind, "web")}?dryRun=All`, {
          body: { metadata: { labels: { dry: "merge" } } },
          contentType: "application/merge-patch+json",
        });
        expect(merge.status, merge.text).toBe(200);
        expect(merge.body.metadata.labels).toEqual({ dry: "merge" });
        const json = await server.call("PATCH", `${pathOf(kind, "web")}?dryRun=All`, {
          body: [{ op: "add", path: "/metadata/labels", value: { dry: "json" } }],
          contentType: "application/json-patch+json",
        });
        expect(json.status, json.text).toBe(200);
        expect(json.body.metadata.labels).toEqual({ dry: "json" });
        const stale = await server.call("PUT", `${pathOf(kind, "web")}?dryRun=All`, {
          body: { ...stored, metadata: { ...stored.metadata, resourceVersion: "999" } },
        });
        expect(stale.status).toBe(409);
      });
    });

    it("delete and delete-collection: answered as carried out, nothing deleted", async () => {
      await create(kind, "web");
      await changesNothing(async () => {
        const reply = await server.call("DELETE", `${pathOf(kind, "web")}?dryRun=All`);
        if (kind === "Proxy") {
          expect(reply.status).toBe(200);
          expect(reply.body.kind).toBe("Proxy");
          expect(reply.body.metadata.deletionTimestamp).toBeDefined();
        } else {
          expect(reply.status, reply.text).toBe(200);
          expect(reply.body).toMatchObject({ kind: "Status", status: "Success" });
        }
        const inBody = await server.call("DELETE", pathOf(kind, "web"), {
          body: { kind: "DeleteOptions", apiVersion: "v1", dryRun: ["All"], propagationPolicy: "Foreground" },
        });
        expect(inBody.status).toBe(200);
        // A Proxy carries the controller's drain finalizer from its create (this server drains Proxies).
        const drain = kind === "Proxy" ? [PROXY_DRAIN_FINALIZER] : [];
        expect(inBody.body.metadata.finalizers).toEqual([...drain, "foregroundDeletion"]);
        const collection = await server.call("DELETE", `${pathOf(kind)}?dryRun=All`);
        expect(collection.status, collection.text).toBe(200);
        expect(
          collection.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
        ).toContain("web");
      });
      expect((await server.call("GET", pathOf(kind, "web"))).body.metadata.deletionTimestamp).toBeUndefined();
    });

    it("redacts secrets in what it answers", async () => {
      const reply = await server.call("POST", `${pathOf(kind)}?dryRun=All`, {
        body: manifest(kind, "secret", SECRET_SPECS[kind]),
      });
      expect(reply.status, reply.text).toBe(201);
      for (const value of Object.values(SECRETS)) expect(reply.text).not.toContain(value);
    });
  });

  it("a Service created in a dry run gets no revision from the controller", async () => {
    const reply = await server.call("POST", `${pathOf("Service")}?dryRun=All`, {
      body: manifest("Service", "web", VALID_SPECS.Service),
    });
    expect(reply.status).toBe(201);
    await server.idle();
    expect((await server.call("GET", pathOf("ServiceRevision"))).body.items).toEqual([]);
  });

  it("an update in a dry run reports the next generation for a spec change", async () => {
    const stored = await create("Service", "web");
    const reply = await server.call("PATCH", `${pathOf("Service", "web")}?dryRun=All`, {
      body: { spec: SPEC_CHANGES.Service },
      contentType: "application/merge-patch+json",
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.metadata.generation).toBe(stored.metadata.generation + 1);
    expect(reply.body.status).toEqual(stored.status);
  });

  const edits = [
    ["a merge patch", "", "application/merge-patch+json", { metadata: { labels: { edited: "yes" } } }],
    [
      "apply",
      "fieldManager=test&",
      "application/apply-patch+yaml",
      manifest("Proxy", "edge", {}, { labels: { edited: "yes" } }),
    ],
  ] as const;
  it.each(edits)(
    "%s of a terminating Proxy answers its mark as the real one keeps it",
    async (_, query, contentType, body) => {
      await create("Proxy", "edge");
      const deleted = await server.call("DELETE", `${pathOf("Proxy", "edge")}?gracePeriodSeconds=30`);
      expect(deleted.status, deleted.text).toBe(200);
      const edit = (dryRun: string) =>
        server.call("PATCH", `${pathOf("Proxy", "edge")}?${query}${dryRun}`, { body, contentType });
      const dryRun = await edit("dryRun=All");
      const real = await edit("");
      // The mark records a grace of 0 whatever the delete asked, as for any custom resource.
      expect(real.body.metadata.deletionGracePeriodSeconds, real.text).toBe(0);
      expect(dryRun.body.metadata.deletionGracePeriodSeconds, dryRun.text).toBe(0);
      const { resourceVersion: _dry, ...answered } = dryRun.body.metadata;
      const { resourceVersion: _real, ...stored } = real.body.metadata;
      expect(answered).toEqual(stored);
    },
  );

  it("server-side apply in a dry run stores nothing either", async () => {
    await changesNothing(async () => {
      const reply = await server.call("PATCH", `${pathOf("Proxy", "applied")}?dryRun=All&fieldManager=test`, {
        body: manifest("Proxy", "applied", {}),
        contentType: "application/apply-patch+yaml",
      });
      expect(reply.status, reply.text).toBe(201);
    });
  });

  describe("refuses any other dryRun value with 400 naming it", () => {
    const requests: [string, string, string, unknown, string?][] = [
      ["create", "POST", "", manifest("Proxy", "x", {})],
      ["update", "PUT", "/a", undefined],
      ["merge patch", "PATCH", "/a", { metadata: { labels: { x: "y" } } }, "application/merge-patch+json"],
      ["delete", "DELETE", "/a", undefined],
      ["delete-collection", "DELETE", "", undefined],
    ];
    it.each(requests)("%s", async (_name, method, suffix, body, contentType) => {
      const stored = await create("Proxy", "a");
      const payload = body ?? (method === "PUT" ? stored : undefined);
      for (const value of ["all", "None", "All,None"]) {
        const reply = await server.call(method as "POST", `${pathOf("Proxy")}${suffix}?dryRun=${value}`, {
          ...(payload !== undefined && { body: payload }),
          ...(contentType && { contentType }),
        });
        expect(reply.status, `${value}: ${reply.text}`).toBe(400);
        expect(reply.body.message).toMatch(/^dryRun: Unsupported value: .*: supported values: "All"$/);
      }
      expect(
        (await server.call("GET", pathOf("Proxy", "a"))).body.metadata.deletionTimestamp,
      ).toBeUndefined();
    });
  });
});
