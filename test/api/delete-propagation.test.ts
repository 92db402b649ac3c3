import { afterEach, describe, expect, it } from "vitest";
import { type KindName, PROXY_DRAIN_FINALIZER } from "../../sdk/schema";
import { manifest, pathOf, startTestServer, type TestServer, warningsOf } from "../helpers/server";
import { type OpenWatch, openWatch } from "../helpers/watch";
import { VALID_SPECS } from "./fixtures";

// DeleteOptions beyond preconditions (delete-options.test.ts): propagationPolicy (Foreground, Background,
// Orphan, and the deprecated orphanDependents), gracePeriodSeconds, in the body or the query, and
// user-set metadata.finalizers that hold a deletion until an update removes them.

describe("delete propagation, grace periods and finalizers", () => {
  let server: TestServer;
  const watches: OpenWatch[] = [];
  afterEach(async () => {
    for (const watch of watches.splice(0)) watch.close();
    await server?.close();
  });

  /** The API alone; with `drainMs`, the controller drains Proxies that long. */
  const start = async (drainMs?: number) => {
    server = await startTestServer(drainMs === undefined ? {} : { proxyDeletionGraceMs: drainMs });
  };
  const create = async (kind: KindName, name: string, metadata: Record<string, unknown> = {}) => {
    const reply = await server.call("POST", pathOf(kind), {
      body: manifest(kind, name, VALID_SPECS[kind], metadata),
    });
    expect(reply.status, reply.text).toBe(201);
    return reply.body;
  };
  const get = async (kind: KindName, name: string) => server.call("GET", pathOf(kind, name));
  const patch = async (kind: KindName, name: string, body: unknown) =>
    server.call("PATCH", pathOf(kind, name), { body, contentType: "application/merge-patch+json" });
  /** A Service and the revision the controller minted for it. */
  const serviceWithRevision = async (name = "web") => {
    const service = await create("Service", name);
    await server.idle();
    const revisions = (await server.call("GET", pathOf("ServiceRevision"))).body.items.filter(
      (item: { metadata: { ownerReferences?: { uid: string }[] } }) =>
        item.metadata.ownerReferences?.some((owner) => owner.uid === service.metadata.uid),
    );
    expect(revisions).toHaveLength(1);
    return { service, revision: revisions[0].metadata.name as string };
  };
  const watchAll = async (kind: KindName) => {
    const stream = await openWatch(
      server.url,
      `${pathOf(kind)}?watch=true&resourceVersion=${server.store.resourceVersion()}`,
    );
    watches.push(stream);
    return stream;
  };

  describe("Background (the default)", () => {
    it.each([
      ["no options", ""],
      ["the query", "?propagationPolicy=Background"],
    ])("deletes the owner at once and its dependents after it (%s)", async (_how, query) => {
      await start();
      const { revision } = await serviceWithRevision();
      const reply = await server.call("DELETE", `${pathOf("Service", "web")}${query}`);
      expect(reply.status, reply.text).toBe(200);
      expect((await get("ServiceRevision", revision)).status).toBe(404);
    });
  });

  describe("Foreground", () => {
    it("marks the owner with foregroundDeletion, deletes its dependents, and lets it go after them", async () => {
      await start();
      const { revision } = await serviceWithRevision();
      // A finalizer holds the revision, so the owner's wait can be seen.
      expect(
        (await patch("ServiceRevision", revision, { metadata: { finalizers: ["example.dev/hold"] } })).status,
      ).toBe(200);
      const events = await watchAll("Service");
      const revisionEvents = await watchAll("ServiceRevision");

      const reply = await server.call("DELETE", `${pathOf("Service", "web")}?propagationPolicy=Foreground`);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.kind).toBe("Service");
      expect(reply.body.metadata.deletionTimestamp).toBeDefined();
      expect(reply.body.metadata.finalizers).toEqual(["foregroundDeletion"]);
      const held = (await get("ServiceRevision", revision)).body;
      expect(held.metadata.deletionTimestamp).toBeDefined();
      expect(held.metadata.finalizers).toEqual(["example.dev/hold"]);
      await server.idle();
      const waiting = await get("Service", "web");
      expect(waiting.status).toBe(200);
      expect(waiting.body.metadata.finalizers).toEqual(["foregroundDeletion"]);
      // The controller mints nothing for a Service being deleted.
      expect((await server.call("GET", pathOf("ServiceRevision"))).body.items).toHaveLength(1);

      const released = await patch("ServiceRevision", revision, { metadata: { finalizers: null } });
      expect(released.status, released.text).toBe(200);
      expect((await get("ServiceRevision", revision)).status).toBe(404);
      expect((await get("Service", "web")).status).toBe(404);
      const revisionGone = await revisionEvents.next((event) => event.type === "DELETED");
      const serviceGone = await events.next((event) => event.type === "DELETED");
      expect(Number(serviceGone.object.metadata.resourceVersion)).toBeGreaterThan(
        Number(revisionGone.object.metadata.resourceVersion),
      );
    });

    it("answers 200 when nothing holds the dependents (all gone before the answer)", async () => {
      await start();
      const { revision } = await serviceWithRevision();
      const reply = await server.call("DELETE", pathOf("Service", "web"), {
        body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Foreground" },
      });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ kind: "Status", status: "Success", details: { name: "web" } });
      expect((await get("ServiceRevision", revision)).status).toBe(404);
      expect((await get("Service", "web")).status).toBe(404);
    });

    it("leaves a dependent that has another owner, only without its reference to the deleted one", async () => {
      await start();
      const a = await create("Proxy", "a");
      const b = await create("Proxy", "b");
      const owners = [a, b].map((owner) => ({
        apiVersion: owner.apiVersion,
        kind: "Proxy",
        name: owner.metadata.name,
        uid: owner.metadata.uid,
      }));
      await create("ServiceRevision", "shared", { ownerReferences: owners });
      const reply = await server.call(
        "DELETE",
        `${pathOf("Proxy", "a")}?propagationPolicy=Foreground&gracePeriodSeconds=0`,
      );
      expect(reply.status, reply.text).toBe(200);
      const kept = await get("ServiceRevision", "shared");
      expect(kept.status).toBe(200);
      expect(kept.body.metadata.ownerReferences).toEqual([owners[1]]);
    });
  });

  describe("Orphan", () => {
    it.each([
      ["propagationPolicy in the body", { body: { propagationPolicy: "Orphan" } }, ""],
      ["propagationPolicy in the query", {}, "?propagationPolicy=Orphan"],
      ["orphanDependents (deprecated)", { body: { orphanDependents: true } }, ""],
    ])(
      "deletes the owner and leaves its dependents without the reference (%s)",
      async (_how, options, query) => {
        await start();
        const { revision } = await serviceWithRevision();
        const reply = await server.call("DELETE", `${pathOf("Service", "web")}${query}`, options);
        expect(reply.status, reply.text).toBe(200);
        expect((await get("Service", "web")).status).toBe(404);
        const orphan = await get("ServiceRevision", revision);
        expect(orphan.status).toBe(200);
        expect(orphan.body.metadata.ownerReferences).toBeUndefined();
        expect(orphan.body.metadata.deletionTimestamp).toBeUndefined();
      },
    );

    it("applies to a delete-collection too", async () => {
      await start();
      const { revision } = await serviceWithRevision("a");
      const reply = await server.call("DELETE", `${pathOf("Service")}?propagationPolicy=Orphan`);
      expect(reply.status, reply.text).toBe(200);
      expect((await server.call("GET", pathOf("Service"))).body.items).toEqual([]);
      expect((await get("ServiceRevision", revision)).status).toBe(200);
    });
  });

  describe("gracePeriodSeconds", () => {
    it("is checked and changes nothing: a Proxy goes at once, or is marked with 0 while a finalizer holds it", async () => {
      await start();
      await create("Proxy", "now");
      const now = await server.call("DELETE", pathOf("Proxy", "now"), { body: { gracePeriodSeconds: 30 } });
      expect(now.status, now.text).toBe(200);
      expect(now.body).toMatchObject({ kind: "Status", status: "Success" });
      expect((await get("Proxy", "now")).status).toBe(404);

      await create("Proxy", "held", { finalizers: ["example.dev/hold"] });
      const marked = await server.call("DELETE", `${pathOf("Proxy", "held")}?gracePeriodSeconds=30`);
      expect(marked.status, marked.text).toBe(200);
      expect(marked.body.metadata.deletionGracePeriodSeconds).toBe(0);
      const again = await server.call("DELETE", `${pathOf("Proxy", "held")}?gracePeriodSeconds=0`);
      expect(again.body.metadata).toEqual(marked.body.metadata);
      expect((await get("Proxy", "held")).status).toBe(200);
    });

    it("is accepted and changes nothing for kinds that go at once", async () => {
      await start();
      await create("ServiceRevision", "r");
      const reply = await server.call("DELETE", `${pathOf("ServiceRevision", "r")}?gracePeriodSeconds=30`);
      expect(reply.status).toBe(200);
    });
  });

  describe("finalizers", () => {
    it.each<KindName>(["Service", "ServiceRevision", "Proxy"])(
      "hold a %s with its deletionTimestamp until an update removes them",
      async (kind) => {
        await start();
        const created = await create(kind, "held", { finalizers: ["example.dev/hold", "example.dev/audit"] });
        expect(created.metadata.finalizers).toEqual(["example.dev/hold", "example.dev/audit"]);
        const reply = await server.call("DELETE", pathOf(kind, "held"));
        // 200 with the object, as kube-apiserver answers a delete its finalizers hold.
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.kind).toBe(kind);
        expect(reply.body.metadata.deletionTimestamp).toBeDefined();
        await new Promise((resolve) => setTimeout(resolve, 200));
        const held = await get(kind, "held");
        expect(held.status).toBe(200);
        expect(held.body.metadata.deletionTimestamp).toBe(reply.body.metadata.deletionTimestamp);
        // Deleting again changes nothing, and answers the object again.
        const again = await server.call("DELETE", pathOf(kind, "held"));
        expect(again.status).toBe(200);
        expect(again.body.metadata).toEqual(held.body.metadata);

        const one = await patch(kind, "held", { metadata: { finalizers: ["example.dev/audit"] } });
        expect(one.status, one.text).toBe(200);
        expect((await get(kind, "held")).status).toBe(200);
        const put = { ...one.body, metadata: { ...one.body.metadata, finalizers: [] } };
        const last = await server.call("PUT", pathOf(kind, "held"), { body: put });
        expect(last.status, last.text).toBe(200);
        expect(last.body.metadata.finalizers).toBeUndefined();
        expect((await get(kind, "held")).status).toBe(404);
      },
    );

    it("keep a Proxy for its drain after they are removed: the controller's finalizer is not theirs", async () => {
      await start(300);
      await create("Proxy", "edge", { finalizers: ["example.dev/hold"] });
      expect((await server.call("DELETE", pathOf("Proxy", "edge"))).status).toBe(200);
      const released = await patch("Proxy", "edge", { metadata: { finalizers: [PROXY_DRAIN_FINALIZER] } });
      expect(released.status, released.text).toBe(200);
      expect((await get("Proxy", "edge")).status).toBe(200);
      await expect.poll(async () => (await get("Proxy", "edge")).status, { timeout: 3000 }).toBe(404);
    });

    it("cannot be added to an object being deleted, and must be qualified names", async () => {
      await start();
      await create("Service", "web", { finalizers: ["example.dev/hold"] });
      await server.call("DELETE", pathOf("Service", "web"));
      const added = await patch("Service", "web", {
        metadata: { finalizers: ["example.dev/hold", "example.dev/more"] },
      });
      expect(added.status).toBe(422);
      expect(added.body.details.causes).toEqual([
        expect.objectContaining({ reason: "FieldValueForbidden", field: "metadata.finalizers" }),
      ]);
      expect(added.body.message).toContain("no new finalizers can be added if the object is being deleted");

      const invalid = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "bad", {}, { finalizers: ["Not Valid/x"] }),
      });
      expect(invalid.status).toBe(422);
      expect(invalid.body.details.causes[0].field).toBe("metadata.finalizers[0]");
      const both = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "both", {}, { finalizers: ["orphan", "foregroundDeletion"] }),
      });
      expect(both.status).toBe(422);
      const unqualified = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "plain", {}, { finalizers: ["cleanup"] }),
      });
      expect(unqualified.status).toBe(201);
      expect(warningsOf(unqualified).join()).toContain("prefer a domain-qualified finalizer name");
      const notStrings = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "x", {}, { finalizers: "example.dev/x" }),
      });
      expect(notStrings.status).toBe(400);
    });

    it("survive a server-side apply that does not mention them, the drain's (no manager owns it) too", async () => {
      await start(60_000);
      await create("Proxy", "edge", { finalizers: ["example.dev/hold"] });
      const applied = await server.call("PATCH", `${pathOf("Proxy", "edge")}?fieldManager=test`, {
        body: manifest("Proxy", "edge", {}, { labels: { applied: "yes" } }),
        contentType: "application/apply-patch+yaml",
      });
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body.metadata.finalizers).toEqual(["example.dev/hold", PROXY_DRAIN_FINALIZER]);
    });
  });

  describe("refuses with 400, deleting nothing", () => {
    it.each([
      ["an unknown policy in the query", "?propagationPolicy=Sideways", undefined, "propagationPolicy"],
      ["a negative grace period", "?gracePeriodSeconds=-5", undefined, "gracePeriodSeconds"],
      ["a grace period that is not a number", "?gracePeriodSeconds=soon", undefined, "gracePeriodSeconds"],
      ["orphanDependents that is not a boolean", "?orphanDependents=maybe", undefined, "orphanDependents"],
      [
        "orphanDependents beside a policy",
        "?orphanDependents=true&propagationPolicy=Orphan",
        undefined,
        "orphanDependents",
      ],
      [
        "the query and the body disagreeing",
        "?propagationPolicy=Orphan",
        { propagationPolicy: "Foreground" },
        "propagationPolicy",
      ],
    ])("%s", async (_case, query, body, parameter) => {
      await start();
      await create("ServiceRevision", "r");
      const reply = await server.call(
        "DELETE",
        `${pathOf("ServiceRevision", "r")}${query}`,
        body ? { body } : {},
      );
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.message).toContain(parameter);
      expect((await get("ServiceRevision", "r")).status).toBe(200);
    });
  });
});
