import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";

const options = (
  preconditions: Record<string, unknown>,
  envelope = { kind: "DeleteOptions", apiVersion: "v1" },
) => ({
  ...envelope,
  preconditions,
});

describe("DeleteOptions on DELETE", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ proxyDeletionGraceMs: 60_000 });
  });
  afterEach(async () => {
    await server?.close();
  });

  const create = async (kind: KindName, name: string) => {
    const reply = await server.call("POST", pathOf(kind), { body: manifest(kind, name, VALID_SPECS[kind]) });
    expect(reply.status).toBe(201);
    return reply.body.metadata as { uid: string; resourceVersion: string };
  };

  describe("preconditions", () => {
    it("delete the object when uid and resourceVersion match", async () => {
      await create("Service", "web");
      await server.idle();
      const { uid, resourceVersion } = (await server.call("GET", pathOf("Service", "web"))).body.metadata;
      const reply = await server.call("DELETE", pathOf("Service", "web"), {
        body: options({ uid, resourceVersion }),
      });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ kind: "Status", status: "Success", details: { name: "web", uid } });
      expect((await server.call("GET", pathOf("Service", "web"))).status).toBe(404);
    });

    it("refuse with 409 Conflict, worded as kube-apiserver words a delete's, when the uid differs", async () => {
      const { uid } = await create("Service", "web");
      const reply = await server.call("DELETE", pathOf("Service", "web"), {
        body: options({ uid: "00000000-0000-0000-0000-000000000000" }),
      });
      expect(reply.status).toBe(409);
      expect(reply.body).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "Conflict",
        code: 409,
        details: { name: "web", group: KINDS.Service.group, kind: "Service" },
      });
      expect(reply.body.message).toBe(
        `Operation cannot be fulfilled on Service.${KINDS.Service.group} "web": the UID in the precondition ` +
          `(00000000-0000-0000-0000-000000000000) does not match the UID in record (${uid}). ` +
          "The object might have been deleted and then recreated",
      );
      expect((await server.call("GET", pathOf("Service", "web"))).body.metadata.uid).toBe(uid);
    });

    it("refuse with 409 Conflict when the resourceVersion differs", async () => {
      const { uid, resourceVersion } = await create("Service", "web");
      await server.idle(); // the controller's status write moves the resourceVersion on
      const current = (await server.call("GET", pathOf("Service", "web"))).body.metadata.resourceVersion;
      expect(current).not.toBe(resourceVersion);
      const reply = await server.call("DELETE", pathOf("Service", "web"), {
        body: options({ uid, resourceVersion }),
      });
      expect(reply.status).toBe(409);
      expect(reply.body.message).toMatch(
        `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${current}). The object might have been modified`,
      );
      expect((await server.call("GET", pathOf("Service", "web"))).status).toBe(200);
    });

    it("do not spare an object deleted and created again under the same name from a stale uid", async () => {
      const first = await create("ServiceRevision", "r1");
      await server.call("DELETE", pathOf("ServiceRevision", "r1"));
      const second = await create("ServiceRevision", "r1");
      const stale = await server.call("DELETE", pathOf("ServiceRevision", "r1"), {
        body: options({ uid: first.uid }),
      });
      expect(stale.status).toBe(409);
      const fresh = await server.call("DELETE", pathOf("ServiceRevision", "r1"), {
        body: options({ uid: second.uid }),
      });
      expect(fresh.status).toBe(200);
    });

    it("accept meta.k8s.io/v1, no kind and apiVersion at all, and null fields as left out", async () => {
      for (const [name, body] of [
        ["a", { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1" }],
        ["b", {}],
        ["c", { preconditions: null, dryRun: null, propagationPolicy: null }],
        ["d", { preconditions: { uid: null, resourceVersion: null } }],
      ] as const) {
        await create("ServiceRevision", name);
        const reply = await server.call("DELETE", pathOf("ServiceRevision", name), { body });
        expect(reply.status, `${name}: ${reply.text}`).toBe(200);
      }
    });

    it("leave a missing object 404", async () => {
      const reply = await server.call("DELETE", pathOf("Service", "ghost"), { body: options({ uid: "x" }) });
      expect(reply.status).toBe(404);
      expect(reply.body.reason).toBe("NotFound");
    });

    it("are checked before a Proxy is marked, and while it terminates", async () => {
      const { uid } = await create("Proxy", "edge");
      const refused = await server.call("DELETE", pathOf("Proxy", "edge"), {
        body: options({ uid: "other" }),
      });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain(
        `the UID in the precondition (other) does not match the UID in record (${uid})`,
      );
      expect(
        (await server.call("GET", pathOf("Proxy", "edge"))).body.metadata.deletionTimestamp,
      ).toBeUndefined();

      const marked = await server.call("DELETE", pathOf("Proxy", "edge"), { body: options({ uid }) });
      expect(marked.status).toBe(200);
      expect(marked.body.metadata.deletionTimestamp).toBeDefined();
      const again = await server.call("DELETE", pathOf("Proxy", "edge"), {
        body: options({ resourceVersion: "1" }),
      });
      expect(again.status).toBe(409);
      expect(again.body.message).toContain("the ResourceVersion in the precondition (1) does not match");
    });
  });

  describe("an empty body", () => {
    it("is no DeleteOptions, with or without a JSON Content-Type", async () => {
      await create("ServiceRevision", "a");
      await create("ServiceRevision", "b");
      expect((await server.call("DELETE", pathOf("ServiceRevision", "a"))).status).toBe(200);
      const typed = await server.call("DELETE", pathOf("ServiceRevision", "b"), {
        headers: { "content-type": "application/json" },
      });
      expect(typed.status, typed.text).toBe(200);
    });
  });

  describe("is refused with 400, the object left as it was, when", () => {
    const cases: [string, unknown, RegExp][] = [
      [
        "propagationPolicy is not a policy",
        { propagationPolicy: "Sideways" },
        /DeleteOptions\.propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"/,
      ],
      [
        "gracePeriodSeconds is negative",
        { gracePeriodSeconds: -1 },
        /DeleteOptions\.gracePeriodSeconds must be a whole number of seconds/,
      ],
      [
        "orphanDependents is not a boolean",
        { orphanDependents: "yes" },
        /DeleteOptions\.orphanDependents must be true or false/,
      ],
      [
        "orphanDependents comes with a propagationPolicy",
        { orphanDependents: true, propagationPolicy: "Foreground" },
        /orphanDependents and propagationPolicy cannot be both set/,
      ],
      [
        "dryRun is not All",
        { kind: "DeleteOptions", dryRun: ["Some"] },
        /dryRun: Unsupported value: "Some": supported values: "All"/,
      ],
      ["dryRun is not a list", { dryRun: "All" }, /DeleteOptions\.dryRun must be a list/],
      ["a field is unknown", { precondition: { uid: "x" } }, /DeleteOptions\.precondition is not a field/],
      ["the body is not an object", [], /must be a DeleteOptions object/],
      ["the body is a string", '"x"', /must be a DeleteOptions object/],
      ["the kind is another", { kind: "Service" }, /kind: .*not "Service"; set kind to "DeleteOptions"/],
      ["the apiVersion is another", { apiVersion: "v2" }, /apiVersion: .*not "v2"; set apiVersion to "v1"/],
      [
        "preconditions is not an object",
        { preconditions: "x" },
        /DeleteOptions\.preconditions must be an object/,
      ],
      [
        "the uid is not a string",
        { preconditions: { uid: 5 } },
        /DeleteOptions\.preconditions\.uid must be a string/,
      ],
      [
        "the resourceVersion is not a string",
        { preconditions: { resourceVersion: 5 } },
        /DeleteOptions\.preconditions\.resourceVersion must be a string/,
      ],
      [
        "a precondition is unknown",
        { preconditions: { name: "x" } },
        /preconditions\.name is not a precondition/,
      ],
    ];

    it.each(cases)("%s", async (_case, body, message) => {
      await create("Service", "web");
      const reply = await server.call("DELETE", pathOf("Service", "web"), { body });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      expect(reply.body.message).toMatch(message);
      expect((await server.call("GET", pathOf("Service", "web"))).status).toBe(200);
    });

    it("preconditions come as query parameters (Kubernetes reads them from the body only)", async () => {
      const { uid } = await create("Service", "web");
      const reply = await server.call("DELETE", `${pathOf("Service", "web")}?preconditions.uid=${uid}`);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(/unsupported query parameter preconditions\.uid/);
    });
  });

  it("refuses a body in another media type with 415", async () => {
    await create("Service", "web");
    const reply = await server.call("DELETE", pathOf("Service", "web"), {
      body: "uid=x",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(reply.status).toBe(415);
  });

  describe("on delete-collection", () => {
    it("accepts an envelope without preconditions", async () => {
      await create("ServiceRevision", "a");
      const reply = await server.call("DELETE", pathOf("ServiceRevision"), {
        body: { kind: "DeleteOptions", apiVersion: "v1" },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.items).toHaveLength(1);
    });

    it("refuses preconditions and malformed fields, deleting nothing", async () => {
      await create("ServiceRevision", "a");
      for (const body of [options({ uid: "x" }), { propagationPolicy: "orphan" }]) {
        const reply = await server.call("DELETE", pathOf("ServiceRevision"), { body });
        expect(reply.status, reply.text).toBe(400);
      }
      expect((await server.call("GET", pathOf("ServiceRevision"))).body.items).toHaveLength(1);
    });
  });
});
