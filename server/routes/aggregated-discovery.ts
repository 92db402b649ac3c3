import type { KindInfo } from "../../sdk/schema";

/**
 * Aggregated discovery (`apidiscovery.k8s.io/v2`): every group, version and resource of `/apis` in one
 * answer, which kubectl and client-go ask for first (and the plain documents only when it is not served).
 */
export const AGGREGATED_DISCOVERY = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** Whether an Accept header lists the v2 aggregated list among its media ranges. */
export function wantsAggregated(accept: string | undefined): boolean {
  return (accept ?? "").split(",").some((range) => {
    const parameters = new Set(range.split(";").map((part) => part.trim()));
    return ["g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"].every((p) => parameters.has(p));
  });
}

/** The list kube-apiserver answers for CRDs: groups, then each group's resources, by name, with their status subresource. */
export function aggregatedDiscovery(
  groups: ReadonlyMap<string, KindInfo[]>,
  verbs: readonly string[],
  statusVerbs: readonly string[],
) {
  const items = [...groups.keys()].sort().map((name) => {
    const kinds = groups.get(name) ?? [];
    const versions = [...new Set(kinds.map((info) => info.version))].map((version) => ({
      version,
      resources: kinds
        .filter((info) => info.version === version)
        .sort((a, b) => a.plural.localeCompare(b.plural))
        .map((info) => ({
          resource: info.plural,
          responseKind: { group: info.group, version: info.version, kind: info.kind },
          scope: "Cluster",
          singularResource: info.kind.toLowerCase(),
          verbs,
          subresources: [
            {
              subresource: "status",
              responseKind: { group: info.group, version: info.version, kind: info.kind },
              verbs: statusVerbs,
            },
          ],
        })),
      freshness: "Current",
    }));
    return { metadata: { name }, versions };
  });
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}
