import { kindOfTypeToken } from "../sdk/resources/type-tokens";
import { isUnknown, type KindName, type PathSegment } from "../sdk/schema";
import { isRecord } from "../sdk/shared/records";

/**
 * The kind of a resource type token, of either family: the dynamic resources' (`pulumi-nodejs:dynamic/
 * exampledev:Service`) and the native package's (`exampledev:compute/v1alpha1:Service`), which take the same
 * `{ metadata, spec }` inputs, so every rule applies to both; undefined if not ours.
 */
export function kindOfType(type: string): KindName | undefined {
  return kindOfTypeToken(type);
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
  if (!isRecord(metadata)) return undefined;
  return isKnownName(metadata.name) ? metadata.name : undefined;
}

/** A non-empty string that is not Pulumi's unknown-value sentinel. */
export function isKnownName(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !isUnknown(value);
}

/** The value at `path` under `value`; undefined where a step is missing or not an object or array. */
export function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (!isRecord(current) && !Array.isArray(current)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}
