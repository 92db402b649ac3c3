// The outputs each kind adds beside metadata, spec and status, computed from the object's spec and status:
// the resource classes derive them from their `spec` and `status` outputs, and the native provider adds them
// to its resources' outputs. Derived, not stored: each registered property costs the program several
// promises with stack traces, and state would keep the same values twice. No @pulumi/pulumi import here.
import type { KindName } from "../schema";
import {
  type BuildStatus,
  CONDITION_TYPES,
  conditionOf,
  type ResolvedBundleStatus,
  type ServiceStatus,
} from "../schema/status";

/** The last build as an output: what was built and what it produced (its message stays in status). */
export type BuildOutput = Pick<BuildStatus, "phase" | "branch" | "commit" | "digest">;

export interface ServiceOutputs {
  latestRevision?: string;
  liveRevision?: string;
  egressReady?: boolean;
  lastBuild?: BuildOutput;
  resolvedBundle?: ResolvedBundleStatus;
}

export interface ServiceRevisionOutputs {
  bundleDigest?: string;
}

/** The part of an object (or of a resource's outputs) the derived outputs read. */
export interface OutputSource {
  spec?: Record<string, unknown> | undefined;
  status?: ServiceStatus | undefined;
}

function buildOutput({ phase, branch, commit, digest }: BuildStatus): BuildOutput {
  return { phase, branch, ...(commit && { commit }), ...(digest && { digest }) };
}

export function serviceOutputs(status: ServiceStatus | undefined): ServiceOutputs {
  const { latestRevision, liveRevision, lastBuild, resolvedBundle } = status ?? {};
  const egress = conditionOf({ status }, CONDITION_TYPES.EgressReady);
  return {
    ...(latestRevision && { latestRevision }),
    ...(liveRevision && { liveRevision }),
    ...(egress && { egressReady: egress.status === "True" }),
    ...(lastBuild && { lastBuild: buildOutput(lastBuild) }),
    ...(resolvedBundle && { resolvedBundle }),
  };
}

export function serviceRevisionOutputs(
  spec: { bundle?: { digest?: string } } | undefined,
): ServiceRevisionOutputs {
  const digest = spec?.bundle?.digest;
  return digest ? { bundleDigest: digest } : {};
}

/** Each kind's derived outputs; a property is absent while there is nothing to say. */
export const KIND_OUTPUTS: Readonly<Record<KindName, (source: OutputSource) => Record<string, unknown>>> = {
  Proxy: () => ({}),
  Service: ({ status }) => ({ ...serviceOutputs(status) }),
  ServiceRevision: ({ spec }) => ({ ...serviceRevisionOutputs(spec as { bundle?: { digest?: string } }) }),
};
