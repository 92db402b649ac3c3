import type { ApiObject, Client, ResourceClient, ServiceStatus } from "../sdk/client";
import type { KindName } from "../sdk/schema";
import type { Condition } from "./await/condition";
import { conditionOf, serviceAccepted } from "./await/conditions";

type Spec = Record<string, unknown>;
export type AnyObject = ApiObject<KindName, Spec, ServiceStatus>;

/** What differs between the kinds, as data: the generic CRUD in `object-provider.ts` reads only this. */
export interface KindBehaviour {
  accessor(client: Client): ResourceClient<AnyObject, unknown>;
  /** Spec changes that the API cannot apply in place, as property paths for Pulumi's replace list. */
  replacedBy(olds: Spec, news: Spec): string[];
  /** What a create or update waits for before it reports success, given the object the write returned. */
  readiness?(written: AnyObject): Condition<AnyObject | undefined>;
  /** Outputs beyond metadata, spec and status. */
  extraOutputs(object: AnyObject): Record<string, unknown>;
}

const templateMode = (spec: Spec) => {
  const template = (spec.template as { spec?: Spec } | undefined)?.spec;
  return template?.filter !== undefined ? "filter" : "backend";
};

export const KIND_BEHAVIOUR: Readonly<Record<KindName, KindBehaviour>> = {
  Proxy: {
    accessor: (client) => client.proxies as unknown as ResourceClient<AnyObject, unknown>,
    replacedBy: () => [],
    extraOutputs: () => ({}),
  },
  Service: {
    accessor: (client) => client.services as unknown as ResourceClient<AnyObject, unknown>,
    // The API refuses to switch a Service between backend and filter mode.
    replacedBy: (olds, news) => (templateMode(olds) === templateMode(news) ? [] : ["spec.template.spec"]),
    readiness: serviceAccepted,
    extraOutputs: (object) => {
      const { latestRevision, liveRevision } = object.status ?? {};
      const egress = conditionOf(object, "EgressReady");
      return {
        ...(latestRevision && { latestRevision }),
        ...(liveRevision && { liveRevision }),
        ...(egress && { egressReady: egress.status === "True" }),
      };
    },
  },
  ServiceRevision: {
    accessor: (client) => client.serviceRevisions as unknown as ResourceClient<AnyObject, unknown>,
    // A ServiceRevision's spec is immutable: any change is a new revision.
    replacedBy: () => ["spec"],
    extraOutputs: (object) => {
      const digest = (object.spec.bundle as { digest?: string } | undefined)?.digest;
      return digest ? { bundleDigest: digest } : {};
    },
  },
};
