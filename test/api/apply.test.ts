import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { DIGEST, SECRETS } from "./fixtures";

const APPLY = "application/apply-patch+yaml";
const MERGE = "application/merge-patch+json";
const REPO = "registry.example.dev/team/app";
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** A Service applied by a manager: its source and the env and bindings it manages. */
function service(
  name: string,
  templateSpec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
) {
  return manifest(
    "Service",
    name,
    {
      source: { oci: { repo: REPO, digest: DIGEST } },
      template: { spec: { runtime: { compatibilityDate: "2024-09-01" }, ...templateSpec } },
    },
    metadata,
  );
}

function entry(object: Json, manager: string, operation = "Apply") {
  return (object.metadata.managedFields ?? []).find(
    (field: Json) => field.manager === manager && field.operation === operation,
  );
}

describe("server-side apply", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    await server?.close();
  });

  const apply = (
    kind: KindName,
    name: string,
    body: unknown,
    query = "fieldManager=a",
    headers: Record<string, string> = {},
  ) =>
    server.call("PATCH", `${pathOf(kind, name)}${query ? `?${query}` : ""}`, {
      body,
      contentType: APPLY,
      headers,
    });

  describe("creates and updates", () => {
    it("creates a missing object (201) and records the manager's fields as an Apply entry", async () => {
      const reply = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { shutdown: { drainTimeout: "10s" } }, { labels: { team: "edge" } }),
      );
      expect(reply.status).toBe(201);
      expect(reply.body.metadata.uid).toBeDefined();
      expect(reply.body.spec).toEqual({
        provider: "cloud",
        shutdown: { drainTimeout: "10s", minimumDrainTime: "30s" },
      });
      expect(reply.body.metadata.managedFields).toEqual([
        {
          manager: "a",
          operation: "Apply",
          apiVersion: "core.example.dev/v1alpha2",
          time: expect.stringMatching(RFC3339),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:labels": { "f:team": {} } },
            "f:spec": { "f:shutdown": { "f:drainTimeout": {} } },
          },
        },
      ]);
      // GET shows them too, as Kubernetes does.
      const read = await server.call("GET", pathOf("Proxy", "edge"));
      expect(read.body.metadata.managedFields).toEqual(reply.body.metadata.managedFields);
    });

    it("reads YAML and JSON bodies alike", async () => {
      const yaml = [
        "apiVersion: core.example.dev/v1alpha2",
        "kind: Proxy",
        "metadata:",
        "  name: from-yaml",
        "  labels: {team: edge}",
        "spec:",
        "  provider: onprem",
        "  shutdown:",
        "    drainTimeout: 15s",
        "",
      ].join("\n");
      const fromYaml = await apply("Proxy", "from-yaml", yaml);
      expect(fromYaml.status).toBe(201);
      expect(fromYaml.body.spec).toMatchObject({ provider: "onprem", shutdown: { drainTimeout: "15s" } });
      const fromJson = await apply(
        "Proxy",
        "from-json",
        JSON.stringify(
          manifest("Proxy", "from-json", { provider: "onprem", shutdown: { drainTimeout: "15s" } }),
        ),
      );
      expect(fromJson.status).toBe(201);
      expect(fromJson.body.spec).toEqual({ ...fromYaml.body.spec });
    });

    it("refuses a body that is not one YAML object (400)", async () => {
      for (const body of ["spec: [1\n", "a: 1\n---\nb: 2\n", "- 1\n- 2\n", "a: 1\na: 2\n"]) {
        const reply = await apply("Proxy", "bad", body);
        expect(reply.status, body).toBe(400);
        expect(reply.body.reason).toBe("BadRequest");
      }
    });

    it("refuses a value JSON cannot carry (422), and prototype keys (400)", async () => {
      const infinite = await apply(
        "Proxy",
        "bad",
        "apiVersion: core.example.dev/v1alpha2\nkind: Proxy\nmetadata: {name: bad}\nspec: {provider: .inf}\n",
      );
      expect(infinite.status).toBe(422);
      expect(infinite.body.message).toContain("spec.provider");
      const proto = await apply("Proxy", "bad", "apiVersion: x\n__proto__: {polluted: true}\n");
      expect(proto.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it("requires a field manager (422, as Kubernetes validates PatchOptions)", async () => {
      const reply = await apply("Proxy", "edge", manifest("Proxy", "edge", {}), "");
      expect(reply.status).toBe(422);
      expect(reply.body.message).toContain("fieldManager: Required value: is required for apply patch");
      expect(reply.body.details.causes).toEqual([expect.objectContaining({ field: "fieldManager" })]);
    });

    it("refuses a field manager over 128 bytes, force on other patches, and unknown parameters", async () => {
      const long = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", {}),
        `fieldManager=${"m".repeat(129)}`,
      );
      expect(long.status).toBe(422);
      await apply("Proxy", "edge", manifest("Proxy", "edge", {}));
      const forced = await server.call("PATCH", `${pathOf("Proxy", "edge")}?force=true`, {
        body: { spec: { provider: "x" } },
        contentType: MERGE,
      });
      expect(forced.status).toBe(422);
      expect(forced.body.message).toContain("force: Forbidden: may not be specified for non-apply patch");
      const unknown = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", {}),
        "fieldManager=a&watch=true",
      );
      expect(unknown.status).toBe(400);
    });

    it("refuses metadata.managedFields in the configuration, and a name other than the URL's (400)", async () => {
      const withFields = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", {}, { managedFields: [{ manager: "x", operation: "Apply" }] }),
      );
      expect(withFields.status).toBe(400);
      expect(withFields.body.message).toContain("metadata.managedFields must be nil");
      const otherName = await apply("Proxy", "edge", manifest("Proxy", "other", {}));
      expect(otherName.status).toBe(400);
    });

    it("admits the result like a PUT: an invalid configuration is 422 naming the field, and nothing is stored", async () => {
      const reply = await apply(
        "Service",
        "web",
        manifest("Service", "web", {
          source: { oci: { repo: REPO, digest: "sha256:nope" } },
          template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
        }),
      );
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes).toContainEqual(
        expect.objectContaining({ field: "spec.source.oci.digest" }),
      );
      expect((await server.call("GET", pathOf("Service", "web"))).status).toBe(404);
    });

    it("reports unknown fields per fieldValidation (Strict 422, Warn a Warning header)", async () => {
      const body = manifest("Proxy", "edge", { colour: "blue" });
      const strict = await apply("Proxy", "edge", body, "fieldManager=a&fieldValidation=Strict");
      expect(strict.status).toBe(422);
      const warned = await apply("Proxy", "edge", body);
      expect(warned.status).toBe(201);
      expect(String(warned.headers.warning)).toContain('unknown field \\"spec.colour\\"');
      expect(warned.body.spec.colour).toBeUndefined();
    });

    it("keeps stored secrets when the configuration carries their placeholders, and never echoes them", async () => {
      const credentials = { username: "robot", password: SECRETS.password };
      const created = await apply(
        "Service",
        "web",
        manifest("Service", "web", {
          source: { oci: { repo: REPO, digest: DIGEST, credentials } },
          template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
        }),
      );
      expect(created.status).toBe(201);
      expect(created.text).not.toContain(SECRETS.password);
      const placeholders = created.body.spec.source.oci.credentials;
      const again = await apply(
        "Service",
        "web",
        manifest("Service", "web", {
          source: { oci: { repo: REPO, digest: DIGEST, credentials: placeholders } },
          template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
        }),
      );
      expect(again.status).toBe(200);
      const stored = server.store.get("Service", "web");
      expect(stored?.spec).toMatchObject({
        source: { oci: { credentials: { passwordData: SECRETS.password } } },
      });
    });

    it("removes a field the same manager applied before and no longer sends; defaults come back", async () => {
      const first = await apply(
        "Service",
        "web",
        service("web", { env: [{ name: "A", value: "1" }] }, { labels: { team: "edge", tier: "front" } }),
      );
      expect(first.status).toBe(201);
      const withLimit = await apply("Service", "web", {
        ...service("web", { env: [{ name: "A", value: "1" }] }, { labels: { team: "edge", tier: "front" } }),
        spec: {
          ...(service("web", { env: [{ name: "A", value: "1" }] }).spec as object),
          revisionHistoryLimit: 3,
        },
      });
      expect(withLimit.body.spec.revisionHistoryLimit).toBe(3);
      const dropped = await apply("Service", "web", service("web", {}, { labels: { team: "edge" } }));
      expect(dropped.status).toBe(200);
      expect(dropped.body.metadata.labels).toEqual({ team: "edge" });
      expect(dropped.body.spec.template.spec.env).toBeUndefined();
      expect(dropped.body.spec.revisionHistoryLimit).toBe(10);
      expect(entry(dropped.body, "a").fieldsV1["f:spec"]["f:template"]["f:spec"]["f:env"]).toBeUndefined();
    });

    it("keeps the resourceVersion when an apply changes nothing", async () => {
      const body = manifest("Proxy", "edge", { provider: "onprem" }, { labels: { team: "edge" } });
      const first = await apply("Proxy", "edge", body);
      const second = await apply("Proxy", "edge", body);
      expect(second.status).toBe(200);
      expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
      expect(second.body.metadata.generation).toBe(1);
    });

    it("stores nothing with dryRun=All and answers what would be stored", async () => {
      const created = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", {}),
        "fieldManager=a&dryRun=All",
      );
      expect(created.status).toBe(201);
      expect(created.body.spec.provider).toBe("cloud");
      expect((await server.call("GET", pathOf("Proxy", "edge"))).status).toBe(404);
      const stored = await apply("Proxy", "edge", manifest("Proxy", "edge", {}));
      const changed = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { provider: "onprem" }),
        "fieldManager=a&dryRun=All",
      );
      expect(changed.body.spec.provider).toBe("onprem");
      expect(changed.body.metadata.generation).toBe(2);
      expect(changed.body.metadata.resourceVersion).toBe(stored.body.metadata.resourceVersion);
      expect((await server.call("GET", pathOf("Proxy", "edge"))).body.spec.provider).toBe("cloud");
    });
  });

  describe("two managers", () => {
    it("share a map-list by name: each owns its items, and dropping one leaves the other's", async () => {
      await apply("Service", "web", service("web", { env: [{ name: "A", value: "1" }] }));
      const both = await apply(
        "Service",
        "web",
        service("web", {
          env: [{ name: "B", value: "2" }],
          bindings: [{ name: "KV", type: "kv", kv: { namespace: "n" } }],
        }),
        "fieldManager=b",
      );
      expect(both.status).toBe(200);
      expect(both.body.spec.template.spec.env).toEqual([
        { name: "A", value: "1" },
        { name: "B", value: "2" },
      ]);
      expect(entry(both.body, "a").fieldsV1["f:spec"]["f:template"]["f:spec"]["f:env"]).toEqual({
        'k:{"name":"A"}': { ".": {}, "f:name": {}, "f:value": {} },
      });
      expect(entry(both.body, "b").fieldsV1["f:spec"]["f:template"]["f:spec"]["f:env"]).toEqual({
        'k:{"name":"B"}': { ".": {}, "f:name": {}, "f:value": {} },
      });
      // a stops managing A: A goes, B (b's) stays.
      const dropped = await apply("Service", "web", service("web", {}));
      expect(dropped.body.spec.template.spec.env).toEqual([{ name: "B", value: "2" }]);
      expect(dropped.body.spec.template.spec.bindings).toEqual([
        { name: "KV", type: "kv", kv: { namespace: "n" } },
      ]);
    });

    it("refuses (409) to change a field another manager owns, one cause per field naming the manager", async () => {
      const created = await server.call("POST", `${pathOf("Proxy")}?fieldManager=kubectl-client-side-apply`, {
        body: manifest("Proxy", "edge", { shutdown: { drainTimeout: "10s", minimumDrainTime: "40s" } }),
      });
      expect(created.status).toBe(201);
      const reply = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { shutdown: { drainTimeout: "20s", minimumDrainTime: "50s" } }),
      );
      expect(reply.status).toBe(409);
      expect(reply.body).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "Conflict",
        code: 409,
        message: expect.stringContaining("Apply failed with 2 conflicts"),
        details: { name: "edge", group: "core.example.dev", kind: "proxies" },
      });
      expect(reply.body.details.causes).toEqual([
        {
          reason: "FieldManagerConflict",
          message: 'conflict with "kubectl-client-side-apply" using core.example.dev/v1alpha2',
          field: ".spec.shutdown.drainTimeout",
        },
        {
          reason: "FieldManagerConflict",
          message: 'conflict with "kubectl-client-side-apply" using core.example.dev/v1alpha2',
          field: ".spec.shutdown.minimumDrainTime",
        },
      ]);
      const one = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { shutdown: { drainTimeout: "20s" } }),
      );
      expect(one.body.message).toBe(
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using core.example.dev/v1alpha2: .spec.shutdown.drainTimeout',
      );
      expect((await server.call("GET", pathOf("Proxy", "edge"))).body.spec.shutdown.drainTimeout).toBe("10s");
    });

    it("names an Apply manager without its version, and a conflicting item of a map-list by its key", async () => {
      await apply("Service", "web", service("web", { env: [{ name: "A", value: "1" }] }));
      const reply = await apply(
        "Service",
        "web",
        service("web", { env: [{ name: "A", value: "2" }] }),
        "fieldManager=b",
      );
      expect(reply.status).toBe(409);
      expect(reply.body.details.causes).toEqual([
        {
          reason: "FieldManagerConflict",
          message: 'conflict with "a"',
          field: '.spec.template.spec.env[name="A"].value',
        },
      ]);
    });

    it("lets a second manager co-own a field by applying the same value", async () => {
      await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      const same = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { provider: "onprem" }),
        "fieldManager=b",
      );
      expect(same.status).toBe(200);
      expect(entry(same.body, "a").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      expect(entry(same.body, "b").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      // a drops it: b still owns it, so it stays.
      const dropped = await apply("Proxy", "edge", manifest("Proxy", "edge", {}));
      expect(dropped.body.spec.provider).toBe("onprem");
    });

    it("takes ownership with force=true: the other manager loses the field", async () => {
      await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { provider: "onprem", shutdown: { drainTimeout: "10s" } }),
      );
      const forced = await apply(
        "Proxy",
        "edge",
        manifest("Proxy", "edge", { provider: "metal" }),
        "fieldManager=b&force=true",
      );
      expect(forced.status).toBe(200);
      expect(forced.body.spec.provider).toBe("metal");
      expect(entry(forced.body, "a").fieldsV1).toEqual({
        "f:spec": { "f:shutdown": { "f:drainTimeout": {} } },
      });
      expect(entry(forced.body, "b").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      // b now owns provider: a may no longer change it without force.
      const back = await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      expect(back.status).toBe(409);
      expect(back.body.details.causes[0].message).toBe('conflict with "b"');
    });

    it("an update by another writer takes the fields it changes, without a conflict", async () => {
      await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      const patched = await server.call("PATCH", `${pathOf("Proxy", "edge")}?fieldManager=ops`, {
        body: { spec: { provider: "metal" } },
        contentType: MERGE,
      });
      expect(patched.status).toBe(200);
      expect(entry(patched.body, "a")).toBeUndefined();
      expect(entry(patched.body, "ops", "Update").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
    });
  });

  describe("other writes record their manager (operation Update)", () => {
    const userAgent = { "user-agent": "my-tool/1.2.3 (linux/amd64) build/abc" };

    it("POST: the manager is the User-Agent's product name, and owns every field it set", async () => {
      const reply = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "edge", { provider: "onprem" }, { annotations: { note: "x" } }),
        headers: userAgent,
      });
      expect(reply.status).toBe(201);
      expect(reply.body.metadata.managedFields).toEqual([
        {
          manager: "my-tool",
          operation: "Update",
          apiVersion: "core.example.dev/v1alpha2",
          time: expect.stringMatching(RFC3339),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:annotations": { ".": {}, "f:note": {} } },
            "f:spec": {
              ".": {},
              "f:provider": {},
              "f:shutdown": { ".": {}, "f:drainTimeout": {}, "f:minimumDrainTime": {} },
            },
          },
        },
      ]);
    });

    it("PUT: the fieldManager parameter wins over the User-Agent; the manager owns only what it changed", async () => {
      const created = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "edge", {}),
        headers: userAgent,
      });
      const replaced = await server.call("PUT", `${pathOf("Proxy", "edge")}?fieldManager=deployer`, {
        body: { ...created.body, spec: { ...created.body.spec, provider: "onprem" } },
        headers: userAgent,
      });
      expect(replaced.status).toBe(200);
      expect(entry(replaced.body, "deployer", "Update").fieldsV1).toEqual({ "f:spec": { "f:provider": {} } });
      expect(entry(replaced.body, "my-tool", "Update").fieldsV1["f:spec"]["f:provider"]).toBeUndefined();
    });

    it("PUT without a User-Agent product records the manager undici sends, or the empty one", async () => {
      const created = await server.call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", "edge", {}),
        headers: { "user-agent": "undici" },
      });
      expect(created.body.metadata.managedFields[0].manager).toBe("undici");
    });

    it("a write that changes nothing leaves the managed fields as they were", async () => {
      const created = await server.call("POST", pathOf("Proxy"), { body: manifest("Proxy", "edge", {}) });
      const same = await server.call("PUT", `${pathOf("Proxy", "edge")}?fieldManager=other`, {
        body: created.body,
      });
      expect(same.body.metadata.managedFields).toEqual(created.body.metadata.managedFields);
    });

    it("[{}] resets ownership: afterwards only the writer's own changes are owned", async () => {
      await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }, { labels: { a: "1" } }));
      const reset = await server.call("PATCH", `${pathOf("Proxy", "edge")}?fieldManager=cleaner`, {
        body: [
          { op: "replace", path: "/metadata/managedFields", value: [{}] },
          { op: "replace", path: "/metadata/labels/a", value: "2" },
        ],
        contentType: "application/json-patch+json",
      });
      expect(reset.status).toBe(200);
      expect(reset.body.metadata.managedFields).toEqual([
        expect.objectContaining({
          manager: "cleaner",
          operation: "Update",
          fieldsV1: { "f:metadata": { "f:labels": { "f:a": {} } } },
        }),
      ]);
    });

    it("managed fields sent back with a write are kept; malformed ones are 422", async () => {
      const created = await apply("Proxy", "edge", manifest("Proxy", "edge", { provider: "onprem" }));
      const rewritten = [{ ...created.body.metadata.managedFields[0], manager: "renamed" }];
      const replaced = await server.call("PUT", pathOf("Proxy", "edge"), {
        body: { ...created.body, metadata: { ...created.body.metadata, managedFields: rewritten } },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body.metadata.managedFields.map((field: Json) => field.manager)).toEqual(["renamed"]);
      const malformed = await server.call("PUT", pathOf("Proxy", "edge"), {
        body: {
          ...replaced.body,
          metadata: { ...replaced.body.metadata, managedFields: [{ manager: "x", operation: "Delete" }] },
        },
      });
      expect(malformed.status).toBe(422);
      expect(malformed.body.details.causes[0].field).toBe("metadata.managedFields[0].operation");
    });
  });

  it("works for every kind", async () => {
    for (const kind of ["Proxy", "Service", "ServiceRevision"] as const) {
      const spec =
        kind === "ServiceRevision"
          ? { bundle: { repo: REPO, digest: DIGEST }, runtime: { compatibilityDate: "2024-09-01" } }
          : kind === "Service"
            ? service("x", {}).spec
            : { provider: "onprem" };
      const reply = await apply(
        kind,
        `applied-${kind.toLowerCase()}`,
        manifest(kind, `applied-${kind.toLowerCase()}`, spec),
      );
      expect(reply.status, kind).toBe(201);
      expect(reply.body.metadata.managedFields[0]).toMatchObject({ apiVersion: KINDS[kind].apiVersion });
    }
  });
});
