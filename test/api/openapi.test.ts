import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIND_NAMES, KINDS } from "../../sdk/schema";
import { kindComponent, listComponent, OBJECT_META } from "../../sdk/schema/openapi";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";

const GROUP_VERSIONS = ["apis/core.example.dev/v1alpha2", "apis/compute.example.dev/v1alpha1"];
const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/apply-patch+yaml",
];

describe("OpenAPI and discovery for kubectl", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function v3(path: string): Promise<Json> {
    const index = await server.call("GET", "/openapi/v3");
    const url = index.body.paths[path].serverRelativeURL;
    const reply = await server.call("GET", url);
    expect(reply.status).toBe(200);
    return reply.body;
  }

  it("lists one OpenAPI v3 document per group version, each under a URL with its hash", async () => {
    const reply = await server.call("GET", "/openapi/v3");
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.paths).sort()).toEqual([...GROUP_VERSIONS].sort());
    for (const path of GROUP_VERSIONS) {
      expect(reply.body.paths[path].serverRelativeURL).toMatch(
        new RegExp(`^/openapi/v3/${path}\\?hash=[0-9A-F]{128}$`),
      );
    }
  });

  it("serves a document under its hash as immutable, and answers 304 to its ETag", async () => {
    const index = await server.call("GET", "/openapi/v3");
    const url: string = index.body.paths[GROUP_VERSIONS[1] as string].serverRelativeURL;
    const hashed = await server.call("GET", url);
    expect(hashed.headers["cache-control"]).toContain("immutable");
    expect(hashed.headers.etag).toBe(`"${url.split("hash=")[1]}"`);
    const plain = await server.call("GET", url.split("?")[0] as string);
    expect(plain.text).toBe(hashed.text);
    expect(plain.headers["cache-control"]).toBe("no-cache, private");
    const again = await server.call("GET", url, {
      headers: { "if-none-match": String(hashed.headers.etag) },
    });
    expect(again.status).toBe(304);
  });

  it.each(KIND_NAMES)("describes %s in its group version's OpenAPI 3.0 document", async (kind) => {
    const { group, version, plural } = KINDS[kind];
    const document = await v3(`apis/${group}/${version}`);
    expect(document.openapi).toBe("3.0.0");
    const gvk = { group, kind, version };
    const schema = document.components.schemas[kindComponent(kind)];
    expect(schema["x-kubernetes-group-version-kind"]).toEqual([gvk]);
    expect(schema.properties.metadata.allOf).toEqual([{ $ref: `#/components/schemas/${OBJECT_META}` }]);
    expect(document.components.schemas[OBJECT_META].properties.managedFields).toBeDefined();
    expect(document.components.schemas[listComponent(kind)]).toBeDefined();

    const collection = document.paths[`/apis/${group}/${version}/${plural}`];
    const item = document.paths[`/apis/${group}/${version}/${plural}/{name}`];
    expect(Object.keys(collection).sort()).toEqual(["delete", "get", "post"]);
    expect(Object.keys(item).sort()).toEqual(["delete", "get", "parameters", "patch", "put"]);
    for (const operation of [
      ...Object.values(collection),
      item.get,
      item.put,
      item.patch,
      item.delete,
    ] as Json[]) {
      expect(operation["x-kubernetes-group-version-kind"]).toEqual(gvk);
    }
    // What kubectl reads: fieldValidation on PATCH (it then validates on the server), the patch types
    // (no strategic merge patch: kubectl sends merge patches), and the apply parameters.
    const patchParameters = item.patch.parameters.map((parameter: Json) => parameter.name);
    expect(patchParameters).toEqual(
      expect.arrayContaining(["fieldValidation", "fieldManager", "force", "dryRun"]),
    );
    expect(Object.keys(item.patch.requestBody.content).sort()).toEqual([...PATCH_TYPES].sort());

    // The status subresource, as kube-apiserver publishes a CRD's: read, replace and patch, with the
    // object's query parameters and operationIds ending in "Status".
    const status = document.paths[`/apis/${group}/${version}/${plural}/{name}/status`];
    expect(Object.keys(status).sort()).toEqual(["get", "parameters", "patch", "put"]);
    for (const method of ["get", "put", "patch"]) {
      expect(status[method].operationId).toBe(`${item[method].operationId}Status`);
      expect(status[method]["x-kubernetes-group-version-kind"]).toEqual(gvk);
      expect(status[method].parameters).toEqual(item[method].parameters);
      expect(status[method].description).toMatch(new RegExp(`status of the specified ${kind}`));
    }
    expect(Object.keys(status.patch.requestBody.content).sort()).toEqual([...PATCH_TYPES].sort());
  });

  it("answers every query parameter a document lists for an operation (none is refused as unsupported)", async () => {
    const values: Record<string, string> = {
      fieldManager: "docs",
      fieldValidation: "Warn",
      force: "false",
      // Empty: a dry run would leave nothing behind for the checks below (dryRun=All is tested in dry-run.test.ts).
      dryRun: "",
      labelSelector: "team=edge",
      limit: "5",
      continue: "",
    };
    for (const path of GROUP_VERSIONS) {
      const document = await v3(path);
      for (const [template, operations] of Object.entries(document.paths as Record<string, Json>)) {
        for (const [method, operation] of Object.entries(operations as Record<string, Json>)) {
          if (method === "parameters" || method === "delete") continue;
          const kind = operation["x-kubernetes-group-version-kind"].kind;
          const name = `docs-${kind.toLowerCase()}`;
          const query = (operation.parameters ?? [])
            .map((parameter: Json) => `${parameter.name}=${encodeURIComponent(values[parameter.name] ?? "")}`)
            .join("&");
          const url = `${template.replace("{name}", name)}?${query}`;
          const body = manifest(kind, name, VALID_SPECS[kind as keyof typeof VALID_SPECS]);
          const reply =
            method === "patch"
              ? await server.call("PATCH", url, { body, contentType: "application/apply-patch+yaml" })
              : await server.call(method.toUpperCase() as "GET", url, method === "get" ? {} : { body });
          expect(reply.body?.message ?? "", `${method} ${url}`).not.toContain("unsupported query parameter");
        }
      }
    }
  });

  it("serves the whole API as Swagger 2.0 under /openapi/v2", async () => {
    const reply = await server.call("GET", "/openapi/v2");
    expect(reply.status).toBe(200);
    expect(reply.body.swagger).toBe("2.0");
    for (const kind of KIND_NAMES) {
      const { group, version, plural } = KINDS[kind];
      expect(reply.body.definitions[kindComponent(kind)]["x-kubernetes-group-version-kind"]).toEqual([
        { group, kind, version },
      ]);
      const patch = reply.body.paths[`/apis/${group}/${version}/${plural}/{name}`].patch;
      expect(patch.consumes).toEqual(PATCH_TYPES);
      expect(patch.parameters.map((parameter: Json) => parameter.name)).toContain("fieldValidation");
    }
    expect(reply.body.definitions[OBJECT_META]).toBeDefined();
  });

  it("serves /openapi/v2 as the protocol buffer client-go asks for", async () => {
    const type = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    const response = await fetch(`${server.url}/openapi/v2`, { headers: { accept: type } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(
      "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
    );
    const bytes = Buffer.from(await response.arrayBuffer());
    // Document.swagger (field 1, a string): tag 0x0a, length 3, "2.0".
    expect([...bytes.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from("2.0")]);
    // Every definition name is in it (NamedSchema.name), as kubectl explain --output=plaintext-openapiv2 reads them.
    for (const kind of KIND_NAMES) expect(bytes.includes(Buffer.from(kindComponent(kind)))).toBe(true);
    const json = await server.call("GET", "/openapi/v2");
    expect(json.headers["content-type"]).toContain("application/json");
  });

  it("answers /api (the core group serves Events only) and /version", async () => {
    expect((await server.call("GET", "/api")).body).toEqual({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [],
    });
    expect((await server.call("GET", "/version")).body).toMatchObject({ major: "1", minor: "37" });
  });

  it("needs the token like every API path", async () => {
    const guarded = await startTestServer({ token: "t0ken" });
    try {
      const anonymous = await guarded.call("GET", "/openapi/v3", { headers: { authorization: "" } });
      expect(anonymous.status).toBe(401);
      expect((await guarded.call("GET", "/openapi/v3")).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it("keeps the object under test untouched by the documents' own checks", async () => {
    expect((await server.call("GET", pathOf("Proxy", "docs-proxy"))).status).toBe(200);
  });
});
