// Discovery of the Events the local server serves (routes/events.ts): the core group's `v1` with `events`,
// and the `events.k8s.io` group, in the plain and the aggregated documents, as kube-apiserver lists them.

const EVENT_VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"];
const EVENTS_GROUP = "events.k8s.io";

/** `events` as an APIResourceList lists it. */
const eventResource = {
  name: "events",
  singularName: "event",
  namespaced: true,
  kind: "Event",
  verbs: EVENT_VERBS,
};

function aggregatedEvents(group: string, shortNames: boolean) {
  return {
    version: "v1",
    resources: [
      {
        resource: "events",
        responseKind: { group, version: "v1", kind: "Event" },
        scope: "Namespaced",
        singularResource: "event",
        verbs: EVENT_VERBS,
        ...(shortNames && { shortNames: ["ev"] }),
      },
    ],
    freshness: "Current",
  };
}

/** `/api` aggregated: the core group, with v1's events. */
export const CORE_AGGREGATED = {
  kind: "APIGroupDiscoveryList",
  apiVersion: "apidiscovery.k8s.io/v2",
  metadata: {},
  items: [{ metadata: { creationTimestamp: null }, versions: [aggregatedEvents("", true)] }],
};

/** The events.k8s.io item of `/apis` aggregated. */
export const EVENTS_AGGREGATED_ITEM = {
  metadata: { name: EVENTS_GROUP },
  versions: [aggregatedEvents(EVENTS_GROUP, false)],
};

export const CORE_VERSIONS = { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] };
export const CORE_RESOURCES = {
  kind: "APIResourceList",
  groupVersion: "v1",
  resources: [{ ...eventResource, shortNames: ["ev"] }],
};

const eventsVersion = { groupVersion: `${EVENTS_GROUP}/v1`, version: "v1" };
export const EVENTS_GROUP_ENTRY = {
  name: EVENTS_GROUP,
  versions: [eventsVersion],
  preferredVersion: eventsVersion,
};
export const EVENTS_RESOURCES = {
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: `${EVENTS_GROUP}/v1`,
  resources: [eventResource],
};
export { EVENTS_GROUP };
