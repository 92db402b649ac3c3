import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIND_NAMES, KINDS } from "../../sdk/schema";
import { discoveryEntries } from "../helpers/discovery";
import { type Json, startTestServer, type TestServer } from "../helpers/server";

const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

describe("discovery and health", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("lists both API groups with their version under /apis", async () => {
    const reply = await server.call("GET", "/apis");
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe("APIGroupList");
    expect(reply.body.groups).toEqual([
      {
        name: "core.example.dev",
        versions: [{ groupVersion: "core.example.dev/v1alpha2", version: "v1alpha2" }],
        preferredVersion: { groupVersion: "core.example.dev/v1alpha2", version: "v1alpha2" },
      },
      {
        name: "compute.example.dev",
        versions: [{ groupVersion: "compute.example.dev/v1alpha1", version: "v1alpha1" }],
        preferredVersion: { groupVersion: "compute.example.dev/v1alpha1", version: "v1alpha1" },
      },
      // Events, as kube-apiserver serves them (routes/events.ts).
      {
        name: "events.k8s.io",
        versions: [{ groupVersion: "events.k8s.io/v1", version: "v1" }],
        preferredVersion: { groupVersion: "events.k8s.io/v1", version: "v1" },
      },
    ]);
  });

  it("describes one group under /apis/<group>", async () => {
    const reply = await server.call("GET", "/apis/compute.example.dev");
    expect(reply.body).toMatchObject({ kind: "APIGroup", name: "compute.example.dev" });
  });

  it.each(KIND_NAMES)(
    "lists %s with its plural, kind, scope and kube-apiserver's eight verbs",
    async (kind) => {
      const { group, version } = KINDS[kind];
      const reply = await server.call("GET", `/apis/${group}/${version}`);
      expect(reply.body).toMatchObject({ kind: "APIResourceList", groupVersion: `${group}/${version}` });
      expect(reply.body.resources).toContainEqual(discoveryEntries(kind).resource);
    },
  );

  it.each(KIND_NAMES)("lists the status subresource of %s as kube-apiserver lists a CRD's", async (kind) => {
    const { group, version, plural } = KINDS[kind];
    const reply = await server.call("GET", `/apis/${group}/${version}`);
    const names = reply.body.resources.map((resource: Json) => resource.name);
    expect(names.indexOf(`${plural}/status`)).toBe(names.indexOf(plural) + 1);
    expect(reply.body.resources).toContainEqual(discoveryEntries(kind).status);
  });

  it("gives a kind the storageVersionHash kube-apiserver gives its CRD", async () => {
    const reply = await server.call("GET", "/apis/core.example.dev/v1alpha2");
    expect(reply.body.resources[0].storageVersionHash).toBe("P/Umy6Tdj1s=");
  });

  it("answers aggregated discovery (apidiscovery.k8s.io/v2) when the Accept header asks for it", async () => {
    const accept = `${AGGREGATED},application/json`;
    const reply = await server.call("GET", "/apis", { headers: { accept } });
    expect(reply.headers["content-type"]).toBe(AGGREGATED);
    const body = JSON.parse(reply.text);
    expect(body).toMatchObject({ kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2" });
    expect(body.items.map((item: Json) => item.metadata.name)).toEqual([
      "compute.example.dev",
      "core.example.dev",
      "events.k8s.io",
    ]);
    expect(body.items[1].versions).toEqual([
      {
        version: "v1alpha2",
        resources: [
          {
            resource: "proxies",
            responseKind: { group: "core.example.dev", version: "v1alpha2", kind: "Proxy" },
            scope: "Cluster",
            singularResource: "proxy",
            verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
            subresources: [
              {
                subresource: "status",
                responseKind: { group: "core.example.dev", version: "v1alpha2", kind: "Proxy" },
                verbs: ["get", "patch", "update"],
              },
            ],
          },
        ],
        freshness: "Current",
      },
    ]);
    const core = await server.call("GET", "/api", { headers: { accept } });
    const [coreGroup] = JSON.parse(core.text).items;
    expect(coreGroup.versions[0].resources.map((resource: Json) => resource.resource)).toEqual(["events"]);
  });

  it("answers /healthz with ok", async () => {
    const reply = await server.call("GET", "/healthz");
    expect(reply.status).toBe(200);
    expect(reply.text).toBe("ok");
  });
});
