import { expect } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";

/**
 * The entries kube-apiserver lists for one of the CRDs in its APIResourceList: the resource with the eight
 * verbs of a CRD, and its status subresource. The local server's discovery tests and the conformance suite
 * expect the same.
 */
export function discoveryEntries(kind: KindName) {
  const { plural } = KINDS[kind];
  return {
    resource: {
      name: plural,
      singularName: kind.toLowerCase(),
      namespaced: false,
      kind,
      verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
      storageVersionHash: expect.any(String),
    },
    status: {
      name: `${plural}/status`,
      singularName: "",
      namespaced: false,
      kind,
      verbs: ["get", "patch", "update"],
    },
  };
}
