import { createHash } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { KIND_NAMES, KINDS, type KindInfo } from "../../sdk/schema";
import { AGGREGATED_DISCOVERY, aggregatedDiscovery, wantsAggregated } from "./aggregated-discovery";
import {
  CORE_AGGREGATED,
  CORE_RESOURCES,
  CORE_VERSIONS,
  EVENTS_AGGREGATED_ITEM,
  EVENTS_GROUP,
  EVENTS_GROUP_ENTRY,
  EVENTS_RESOURCES,
} from "./event-discovery";

/**
 * What every kind serves, in the order kube-apiserver lists a CRD's verbs. `watch` matters: informer
 * factories and RESTMappers read the verbs before they watch.
 */
const VERBS = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"];

/** What the status subresource (`<plural>/status`) serves, in kube-apiserver's order. */
export const STATUS_VERBS = ["get", "patch", "update"];

/** Kubernetes' `StorageVersionHash`: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64. */
function storageVersionHash({ group, version, kind }: KindInfo): string {
  return createHash("sha256")
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString("base64");
}

/**
 * Kubernetes discovery: `/apis` lists the groups, `/apis/<group>` one group, `/apis/<group>/<version>`
 * its resources and verbs; `/api` (the core group: Events only) and `/version` complete what kubectl reads.
 * Every group serves one version, which is therefore the preferred one.
 */
export const discoveryRoutes: FastifyPluginAsync = async (fastify) => {
  const groups = new Map<string, KindInfo[]>();
  for (const kind of KIND_NAMES)
    groups.set(KINDS[kind].group, [...(groups.get(KINDS[kind].group) ?? []), KINDS[kind]]);
  const groupOf = (name: string, kinds: KindInfo[]) => {
    const versions = [...new Set(kinds.map((info) => info.version))].map((version) => ({
      groupVersion: `${name}/${version}`,
      version,
    }));
    return { name, versions, preferredVersion: versions[0] };
  };

  // The legacy core group: this API serves none of its kinds, so it lists no version (kubectl asks first).
  // Aggregated, when asked for: `/api` (the core group, none here) and `/apis` (every group) as one list each.
  // A Buffer, so that fastify sends the media type as kube-apiserver writes it (a string gets a charset and
  // quoted parameters).
  const aggregated = (reply: FastifyReply, list: object) =>
    reply.header("content-type", AGGREGATED_DISCOVERY).send(Buffer.from(JSON.stringify(list)));
  // The core group serves one kind here: Events (routes/events.ts), as does events.k8s.io.
  fastify.get("/api", async (request, reply) => {
    if (wantsAggregated(request.headers.accept)) return aggregated(reply, CORE_AGGREGATED);
    return CORE_VERSIONS;
  });
  fastify.get("/api/v1", async () => CORE_RESOURCES);
  fastify.get(`/apis/${EVENTS_GROUP}`, async () => ({
    kind: "APIGroup",
    apiVersion: "v1",
    ...EVENTS_GROUP_ENTRY,
  }));
  fastify.get(`/apis/${EVENTS_GROUP}/v1`, async () => EVENTS_RESOURCES);

  // The Kubernetes release the server follows (discovery, OpenAPI v3, server-side apply, the status strategy:
  // the reference release of docs/kubernetes.md), for `kubectl version` and clients that adapt to the server.
  fastify.get("/version", async () => ({
    major: "1",
    minor: "37",
    gitVersion: "v1.37.0+exampledev",
    gitTreeState: "clean",
    compiler: "node",
    platform: `${process.platform}/${process.arch}`,
  }));

  fastify.get("/apis", async (request, reply) => {
    if (wantsAggregated(request.headers.accept)) {
      const list = aggregatedDiscovery(groups, VERBS, STATUS_VERBS);
      return aggregated(reply, { ...list, items: [...list.items, EVENTS_AGGREGATED_ITEM] });
    }
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [...[...groups].map(([name, kinds]) => groupOf(name, kinds)), EVENTS_GROUP_ENTRY],
    };
  });

  for (const [name, kinds] of groups) {
    fastify.get(`/apis/${name}`, async () => ({
      kind: "APIGroup",
      apiVersion: "v1",
      ...groupOf(name, kinds),
    }));
    for (const version of new Set(kinds.map((info) => info.version))) {
      fastify.get(`/apis/${name}/${version}`, async () => ({
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: `${name}/${version}`,
        resources: kinds
          .filter((info) => info.version === version)
          .flatMap((info) => [
            {
              name: info.plural,
              singularName: info.kind.toLowerCase(),
              namespaced: false,
              kind: info.kind,
              verbs: VERBS,
              storageVersionHash: storageVersionHash(info),
            },
            // The status subresource, listed as kube-apiserver lists a CRD's (no singular name, no hash).
            {
              name: `${info.plural}/status`,
              singularName: "",
              namespaced: false,
              kind: info.kind,
              verbs: STATUS_VERBS,
            },
          ]),
      }));
    }
  }
};
