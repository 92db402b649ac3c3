import { TYPE_TOKENS } from "../sdk/resources/type-tokens";
import { isUnknown, type KindName } from "../sdk/schema";
import { isPlainObject } from "../sdk/shared/records";

const KIND_BY_TYPE: ReadonlyMap<string, KindName> = new Map(
  (Object.entries(TYPE_TOKENS) as [KindName, string][]).map(([kind, token]) => [token, kind]),
);

/** The kind of a resource type token (the SDK's classes register one per kind); undefined if not ours. */
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
