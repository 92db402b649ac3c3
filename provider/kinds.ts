import type { ApiObject, Client, ResourceClient, ServiceStatus } from "../sdk/client";
import type { Condition } from "../sdk/client/wait";
import type { KindName } from "../sdk/schema";
import { proxyReady, serviceAccepted } from "./await/conditions";

type Spec = Record<string, unknown>;
export type AnyObject = ApiObject<KindName, Spec, ServiceStatus>;

/** What differs between the kinds, as data: the generic CRUD in `object-provider.ts` reads only this. */
export interface KindBehaviour {
  accessor(client: Client): ResourceClient<AnyObject, unknown>;
  /** What a create or update waits for before it reports success, given the object the write returned. */
  readiness?(written: AnyObject): Condition<AnyObject | undefined>;
}

export const KIND_BEHAVIOUR: Readonly<Record<KindName, KindBehaviour>> = {
  Proxy: {
    accessor: (client) => client.proxies as unknown as ResourceClient<AnyObject, unknown>,
    readiness: proxyReady,
  },
  Service: {
    accessor: (client) => client.services as unknown as ResourceClient<AnyObject, unknown>,
    readiness: serviceAccepted,
  },
  ServiceRevision: {
    accessor: (client) => client.serviceRevisions as unknown as ResourceClient<AnyObject, unknown>,
  },
};
