import { isUnknown, KINDS, type KindName } from "../sdk/schema";

/**
 * How the pack recognises the SDK's resources: Pulumi names a dynamic resource
 * `pulumi-nodejs:dynamic/<module>:<type>`, and the SDK registers each kind under module "exampledev".
 */
const TYPE_PREFIX = "pulumi-nodejs:dynamic/exampledev:";

export function typeToken(kind: KindName): string {
  return `${TYPE_PREFIX}${kind}`;
}

const KIND_BY_TYPE: ReadonlyMap<string, KindName> = new Map(
  (Object.keys(KINDS) as KindName[]).map((kind) => [typeToken(kind), kind]),
);

/** The kind of a resource type token, or undefined for resources that are not ours. */
export function kindOfType(type: string): KindName | undefined {
  return KIND_BY_TYPE.get(type);
}

/**
 * The resource's properties as plain values. @pulumi/policy hands them over wrapped in a proxy that throws on
 * reading an unknown value, which would abort the whole policy with a "can't run during preview" note; reading
 * through property descriptors bypasses the proxy, and the shared rules then skip unknown values themselves.
 */
export function plainProperties(props: Record<string, unknown>): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(props)) plain[key] = Object.getOwnPropertyDescriptor(props, key)?.value;
  return plain;
}

/** `kind "name"`: how messages name a resource, by its Pulumi logical name as written in the program. */
export function describeResource(kind: KindName, name: string): string {
  return `${kind} ${JSON.stringify(name)}`;
}

/** The API object name (`metadata.name`) when it is known; undefined when absent or still unknown. */
export function objectName(props: Record<string, unknown>): string | undefined {
  const metadata = props.metadata;
  if (!isPlainObject(metadata)) return undefined;
  return isKnownName(metadata.name) ? metadata.name : undefined;
}

/** A non-empty string that is not Pulumi's unknown-value sentinel. */
export function isKnownName(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !isUnknown(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
