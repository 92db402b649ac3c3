import { isDeepStrictEqual } from "node:util";
import { CREATE_TOKEN_ANNOTATION, createTokenOf, withCreateToken } from "../sdk/client";
import {
  isPlaceholder,
  type KindName,
  moveWriteOnlyPasswords,
  redactSecrets,
  withoutSecretName,
} from "../sdk/schema";
import { isRecord } from "../sdk/shared/records";
import type { AnyObject } from "./kinds";

/** The resource's checked inputs, as `check` returns them. */
export interface ObjectInputs {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
  adopt?: boolean;
  await?: { timeoutSeconds?: number; skip?: boolean };
  /** The Pulumi logical name, for naming objects the program does not name (sent only for those). */
  logicalName?: string;
  /** True when the provider chose metadata.name, so later checks keep it. */
  autoNamed?: boolean;
  /**
   * The resource's URN, sent with `logicalName`: the seed of its generated names (`naming.ts`). Check consumes it;
   * it is not kept in state.
   */
  nameSeed?: string;
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
  /**
   * The token the provider's create wrote as an annotation. With `metadata.uid` it identifies the object this
   * resource manages; when a create's outcome was unknown (no uid yet), it is how the object is found again.
   */
  createToken?: string;
};

/**
 * Whether `object`, found under the resource's name, is the one this resource manages: the same uid, or, for
 * a create whose outcome was unknown, the create's token. Another object under the name (deleted and created
 * again outside Pulumi, or another stack's) is not.
 */
export function isManaged(state: ObjectOutputs, object: AnyObject): boolean {
  const { uid } = state.metadata;
  if (uid !== undefined) return object.metadata.uid === uid;
  if (state.createToken !== undefined) return createTokenOf(object) === state.createToken;
  return true; // state written before uids were recorded: the name is all there is
}

/**
 * The body sent to the API: the declared object (with the create's token), nothing of Pulumi's. A `uid` is a
 * precondition (the server refuses, 409, to write another object under the name), as a `resourceVersion` is.
 * `finalizers` are the current object's, which a replace carries over: a stack declares none, and a PUT
 * without them would take off those the server and controllers hold (the Proxy drain's).
 */
export function apiObject(
  kind: KindName,
  apiVersion: string,
  inputs: ObjectInputs,
  options: { resourceVersion?: string; createToken?: string; uid?: string; finalizers?: string[] } = {},
) {
  const { name, labels, annotations } = inputs.metadata;
  const { resourceVersion, createToken, uid, finalizers } = options;
  const object = {
    apiVersion,
    kind,
    metadata: {
      name,
      ...(uid && { uid }),
      ...(labels && { labels }),
      ...(annotations && { annotations }),
      ...(resourceVersion && { resourceVersion }),
      ...(finalizers && finalizers.length > 0 && { finalizers }),
    },
    spec: inputs.spec,
  };
  return createToken === undefined ? object : withCreateToken(object, createToken);
}

/**
 * Outputs after a create or update: the declared spec (the API echoes secrets only as placeholders, so the
 * declared values are what state keeps), the server's metadata and status. The kinds' derived outputs
 * (latestRevision, ...) are not stored: the resource classes compute them (sdk/resources/kind-outputs.ts).
 */
export function outputsOf(inputs: ObjectInputs, object: AnyObject): ObjectOutputs {
  const { uid, resourceVersion, generation, creationTimestamp } = object.metadata;
  const createToken = createTokenOf(object);
  return {
    ...inputs,
    metadata: { ...inputs.metadata, uid, resourceVersion, generation, creationTimestamp },
    status: object.status ?? {},
    ...(createToken !== undefined && { createToken }),
  } as ObjectOutputs;
}

/**
 * Outputs of a create whose outcome is unknown (the answer was lost and the object could not be looked up):
 * the resource enters state without a uid, and the next `up`, `refresh` or `destroy` finds the object, if it
 * exists, by the create's token.
 */
export function unconfirmedOutputs(inputs: ObjectInputs, createToken: string): ObjectOutputs {
  return { ...inputs, status: {}, createToken };
}

/**
 * Outputs after a refresh. The server's secret placeholders and its move of `password` into `passwordData`
 * are not drift: when the server holds what state holds, state's spec is kept as it is. Otherwise the server's
 * spec is taken, with placeholders filled from state, so the next `pulumi up` shows the drift and fixes it.
 *
 * With `serverSideApply`, only what this stack manages is compared: the labels and annotations it declares,
 * and the fields of the spec it declares (items of a list keyed by name, by name). What other field managers
 * added (a label set with kubectl, an env entry applied by another tool) is theirs, not drift; a declared
 * field they changed or removed still is. `metadata.managedFields` is never part of the outputs.
 */
export function refreshedOutputs(
  kind: KindName,
  state: ObjectOutputs,
  object: AnyObject,
  options: { serverSideApply?: boolean } = {},
): ObjectOutputs {
  const declared = moveWriteOnlyPasswords(kind, state.spec);
  const live = options.serverSideApply
    ? (declaredPart(object.spec, declared) as AnyObject["spec"])
    : object.spec;
  const spec = isDeepStrictEqual(redactSecrets(kind, declared), live)
    ? state.spec
    : (fillPlaceholders(live, declared) as Record<string, unknown>);
  const server = withoutServerAnnotations(object.metadata);
  const { labels, annotations } = options.serverSideApply
    ? {
        labels: declaredKeys(server.labels, state.metadata.labels),
        annotations: declaredKeys(server.annotations, state.metadata.annotations),
      }
    : server;
  // Only the input fields carry over: the kind's outputs come from the server's object, or are gone.
  const { adopt, await: awaitSettings, logicalName, autoNamed, __provider } = state;
  const inputs: ObjectInputs = {
    ...(adopt !== undefined && { adopt }),
    ...(awaitSettings !== undefined && { await: awaitSettings }),
    ...(autoNamed !== undefined && { autoNamed }),
    ...(__provider !== undefined && { __provider }),
    ...(logicalName !== undefined && { logicalName }),
    metadata: { name: object.metadata.name, ...(labels && { labels }), ...(annotations && { annotations }) },
    spec,
  };
  return outputsOf(inputs, object);
}

/**
 * The create's token is the provider's bookkeeping and the Secret name the server's (it names where the
 * object's secret values are kept): neither is a declared annotation, so neither is drift.
 */
function withoutServerAnnotations(
  metadata: AnyObject["metadata"],
): Pick<AnyObject["metadata"], "labels" | "annotations"> {
  const { [CREATE_TOKEN_ANNOTATION]: _token, ...annotations } = withoutSecretName(metadata.annotations) ?? {};
  return {
    ...(metadata.labels && { labels: metadata.labels }),
    ...(Object.keys(annotations).length > 0 && { annotations }),
  };
}

/** The entries of `live` whose keys `declared` has; undefined when none is left. */
function declaredKeys(
  live: Record<string, string> | undefined,
  declared: Record<string, string> | undefined,
): Record<string, string> | undefined {
  const kept = Object.entries(live ?? {}).filter(
    ([key]) => declared !== undefined && Object.hasOwn(declared, key),
  );
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * The part of `live` that `declared` declares: at every level, the keys `declared` has. A list whose items
 * all carry a string `name` (on both sides) is keyed by it, as the API merges `env` and `bindings`: the live
 * items with a declared name, in the declared order (the order of such a list is not its content). Any other
 * list, and any other value, is compared whole.
 */
export function declaredPart(live: unknown, declared: unknown): unknown {
  if (isRecord(live) && isRecord(declared)) {
    return Object.fromEntries(
      Object.entries(live)
        .filter(([key]) => Object.hasOwn(declared, key))
        .map(([key, value]) => [key, declaredPart(value, declared[key])]),
    );
  }
  if (Array.isArray(live) && Array.isArray(declared) && keyedByName(live) && keyedByName(declared)) {
    const byName = new Map(live.map((item) => [item.name, item]));
    return declared.flatMap((item) =>
      byName.has(item.name) ? [declaredPart(byName.get(item.name), item)] : [],
    );
  }
  return live;
}

function keyedByName(items: unknown[]): items is { name: string }[] {
  return items.every((item) => isRecord(item) && typeof item.name === "string");
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
