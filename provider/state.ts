import { isDeepStrictEqual } from "node:util";
import { isPlaceholder, type KindName, moveWriteOnlyPasswords, redactSecrets } from "../sdk/schema";
import { type AnyObject, KIND_BEHAVIOUR } from "./kinds";

/** The resource's checked inputs, as `check` returns them. */
export interface ObjectInputs {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
  adopt?: boolean;
  await?: { timeoutSeconds?: number; skip?: boolean };
  /** The Pulumi logical name, for naming objects the program does not name. */
  logicalName: string;
  /** True when the provider chose metadata.name, so later checks keep it. */
  autoNamed?: boolean;
  __provider?: string;
}

export type ObjectOutputs = ObjectInputs & {
  metadata: ObjectInputs["metadata"] & {
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
  };
  status: Record<string, unknown>;
};

/** The body sent to the API: the declared object, nothing of Pulumi's. */
export function apiObject(
  kind: KindName,
  apiVersion: string,
  inputs: ObjectInputs,
  resourceVersion?: string,
) {
  const { name, labels, annotations } = inputs.metadata;
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      ...(labels && { labels }),
      ...(annotations && { annotations }),
      ...(resourceVersion && { resourceVersion }),
    },
    spec: inputs.spec,
  };
}

/**
 * Outputs after a create or update: the declared spec (the API echoes secrets only as placeholders, so the
 * declared values are what state keeps), the server's metadata and status, and the kind's own outputs.
 */
export function outputsOf(kind: KindName, inputs: ObjectInputs, object: AnyObject): ObjectOutputs {
  const { uid, resourceVersion, generation, creationTimestamp } = object.metadata;
  return {
    ...inputs,
    metadata: { ...inputs.metadata, uid, resourceVersion, generation, creationTimestamp },
    status: object.status ?? {},
    ...KIND_BEHAVIOUR[kind].extraOutputs(object),
  } as ObjectOutputs;
}

/**
 * Outputs after a refresh. The server's secret placeholders and its move of `password` into `passwordData`
 * are not drift: when the server holds what state holds, state's spec is kept as it is. Otherwise the server's
 * spec is taken, with placeholders filled from state, so the next `pulumi up` shows the drift and fixes it.
 */
export function refreshedOutputs(kind: KindName, state: ObjectOutputs, object: AnyObject): ObjectOutputs {
  const declared = moveWriteOnlyPasswords(kind, state.spec);
  const spec = isDeepStrictEqual(redactSecrets(kind, declared), object.spec)
    ? state.spec
    : (fillPlaceholders(object.spec, declared) as Record<string, unknown>);
  const { labels, annotations } = object.metadata;
  // Only the input fields carry over: the kind's outputs come from the server's object, or are gone.
  const { adopt, await: awaitSettings, logicalName, autoNamed, __provider } = state;
  const inputs: ObjectInputs = {
    ...(adopt !== undefined && { adopt }),
    ...(awaitSettings !== undefined && { await: awaitSettings }),
    ...(autoNamed !== undefined && { autoNamed }),
    ...(__provider !== undefined && { __provider }),
    logicalName,
    metadata: { name: object.metadata.name, ...(labels && { labels }), ...(annotations && { annotations }) },
    spec,
  };
  return outputsOf(kind, inputs, object);
}

function fillPlaceholders(server: unknown, state: unknown): unknown {
  if (isPlaceholder(server)) return state ?? server;
  if (Array.isArray(server))
    return server.map((item, i) => fillPlaceholders(item, Array.isArray(state) ? state[i] : undefined));
  if (typeof server === "object" && server !== null) {
    const known = typeof state === "object" && state !== null ? (state as Record<string, unknown>) : {};
    return Object.fromEntries(
      Object.entries(server).map(([key, value]) => [key, fillPlaceholders(value, known[key])]),
    );
  }
  return server;
}
