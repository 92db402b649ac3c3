import { expect } from "vitest";
import { KIND_NAMES, KINDS } from "../../../sdk/schema";
import { discoveryEntries } from "../../helpers/discovery";
import type { Json } from "../../helpers/server";
import type { Backend } from "./backends";
import { countedTest } from "./helpers";

/**
 * Discovery: the groups, versions and kinds, plain and aggregated.
 * `backend()` is the server of the enclosing describe.
 */
export function discoveryTests(backend: () => Backend): void {
  const test = countedTest(backend);

  test("discovery lists each group, its version and each kind with the same verbs", async (server) => {
    const groups = (await server.call("GET", "/apis")).body.groups.map((group: Json) => group.name);
    for (const kind of KIND_NAMES) {
      const { group, version, plural } = KINDS[kind];
      expect(groups).toContain(group);
      const one = await server.call("GET", `/apis/${group}`);
      expect(one.body).toMatchObject({
        kind: "APIGroup",
        name: group,
        preferredVersion: { groupVersion: `${group}/${version}`, version },
      });
      const list = (await server.call("GET", `/apis/${group}/${version}`)).body;
      expect(list).toMatchObject({ kind: "APIResourceList", groupVersion: `${group}/${version}` });
      const expected = discoveryEntries(kind);
      expect(list.resources.find((resource: Json) => resource.name === plural)).toEqual(expected.resource);
      const names = list.resources.map((resource: Json) => resource.name);
      expect(names.indexOf(`${plural}/status`)).toBe(names.indexOf(plural) + 1);
      expect(list.resources.find((resource: Json) => resource.name === `${plural}/status`)).toEqual(
        expected.status,
      );
    }
  });

  test("aggregated discovery lists each kind as kube-apiserver lists a CRD", async (server) => {
    const type = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    const reply = await server.call("GET", "/apis", { headers: { accept: `${type},application/json` } });
    expect(reply.headers["content-type"]).toBe(type);
    const { items } = JSON.parse(reply.text);
    for (const kind of KIND_NAMES) {
      const { group, version, plural } = KINDS[kind];
      const entry = items
        .find((item: Json) => item.metadata.name === group)
        ?.versions.find((each: Json) => each.version === version);
      expect(entry?.freshness).toBe("Current");
      const resource = entry.resources.find((each: Json) => each.resource === plural);
      expect(resource).toMatchObject({
        responseKind: { group, version, kind },
        scope: "Cluster",
        singularResource: kind.toLowerCase(),
        verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
      });
      expect(resource.subresources).toEqual([
        { subresource: "status", responseKind: { group, version, kind }, verbs: ["get", "patch", "update"] },
      ]);
    }
  });
}
