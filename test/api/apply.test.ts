import { describe, expect, it } from "vitest";
import { KINDS } from "../../sdk/schema";
import { manifest, pathOf, type TestServer } from "../helpers/server";
import { applyServer, entry, MERGE, REPO, RFC3339, service } from "./apply-fixtures";
import { DIGEST, SECRETS } from "./fixtures";

describe("server-side apply", () => {
  let server: TestServer;
  const apply = applyServer((started) => {
    server = started;
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
