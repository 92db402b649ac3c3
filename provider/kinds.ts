import type { ApiObject, Client, ResourceClient, ServiceStatus } from "../sdk/client";
import type { KindName } from "../sdk/schema";
import { type BuildStatus, CONDITION_TYPES } from "../sdk/schema/status";
import type { Condition } from "./await/condition";
import { conditionOf, serviceAccepted } from "./await/conditions";

type Spec = Record<string, unknown>;
export type AnyObject = ApiObject<KindName, Spec, ServiceStatus>;

/** What differs between the kinds, as data: the generic CRUD in `object-provider.ts` reads only this. */
export interface KindBehaviour {
  accessor(client: Client): ResourceClient<AnyObject, unknown>;
  /** What a create or update waits for before it reports success, given the object the write returned. */
  readiness?(written: AnyObject): Condition<AnyObject | undefined>;
  /** Outputs beyond metadata, spec and status. */
  extraOutputs(object: AnyObject): Record<string, unknown>;
}

/** The last build as an output: what was built and what it produced (its message stays in status). */
export type BuildOutput = Pick<BuildStatus, "phase" | "branch" | "commit" | "digest">;

function buildOutput({ phase, branch, commit, digest }: BuildStatus): BuildOutput {
  return { phase, branch, ...(commit && { commit }), ...(digest && { digest }) };
}

export const KIND_BEHAVIOUR: Readonly<Record<KindName, KindBehaviour>> = {
  Proxy: {
    accessor: (client) => client.proxies as unknown as ResourceClient<AnyObject, unknown>,
    extraOutputs: () => ({}),
  },
  Service: {
    accessor: (client) => client.services as unknown as ResourceClient<AnyObject, unknown>,
    readiness: serviceAccepted,
    extraOutputs: (object) => {
      const { latestRevision, liveRevision, lastBuild, resolvedBundle } = object.status ?? {};
      const egress = conditionOf(object, CONDITION_TYPES.EgressReady);
      return {
        ...(latestRevision && { latestRevision }),
        ...(liveRevision && { liveRevision }),
        ...(egress && { egressReady: egress.status === "True" }),
        ...(lastBuild && { lastBuild: buildOutput(lastBuild) }),
        ...(resolvedBundle && { resolvedBundle }),
      };
    },
  },
  ServiceRevision: {
    accessor: (client) => client.serviceRevisions as unknown as ResourceClient<AnyObject, unknown>,
    extraOutputs: (object) => {
      const digest = (object.spec.bundle as { digest?: string } | undefined)?.digest;
      return digest ? { bundleDigest: digest } : {};
    },
  },
};
