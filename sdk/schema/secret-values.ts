import { isDeepStrictEqual } from "node:util";
import { isRecord, replaceAt, valueAt } from "../shared/records";
import type { KindName } from "./kinds";
import { isPlaceholder, redactSecrets, secretPaths } from "./secrets";

/**
 * Where an object's secret values are read, on either server: the objects carry placeholders, and the
 * annotation below names a Secret in `SECRETS_NAMESPACE` holding the values, keyed by field path. On
 * kube-apiserver the admission webhook mints that Secret (webhook/secrets.ts); the local server keeps
 * the values in its store and answers for the Secret itself. Either way only a controller's identity may
 * read it, and each name stands for one set of values: a change of values gets a new name.
 */

export const SECRETS_NAMESPACE = "exampledev-system";
/** On an object: the name of the Secret holding its secret values. Set by the server, never by a client. */
export const SECRET_ANNOTATION = "secrets.example.dev/name";
/** The Secrets' `type`. */
export const SECRET_TYPE = "example.dev/secret-values";

/** Secret values by key: the field's path from the object root, dotted (`spec.source.oci.credentials.passwordData`). */
export type SecretValues = Record<string, string>;

const keyOf = (path: readonly (string | number)[]) => ["spec", ...path].join(".");

/** The secret values a spec holds (placeholders are no values). */
export function secretValuesOf(kind: KindName, spec: Record<string, unknown>): SecretValues {
  return splitSecrets(kind, spec, {}).values;
}

export interface SplitSpec {
  /** The spec as stored: each secret value replaced by its placeholder. */
  spec: Record<string, unknown>;
  /** The values the object holds now: new ones, and the previous ones where the spec sent a placeholder back. */
  values: SecretValues;
}

/**
 * Takes the secret values out of an admitted spec (write-only passwords already moved to passwordData).
 * A placeholder sent back keeps the previous value at that path.
 */
export function splitSecrets(
  kind: KindName,
  spec: Record<string, unknown>,
  previous: SecretValues,
): SplitSpec {
  const values: SecretValues = {};
  for (const path of secretPaths(kind, spec)) {
    const value = valueAt(spec, path);
    const key = keyOf(path);
    if (!isPlaceholder(value)) values[key] = String(value);
    else if (previous[key] !== undefined) values[key] = previous[key];
  }
  return { spec: redactSecrets(kind, spec), values };
}

/** The spec with its secret values back in place of the placeholders: what a controller runs with. */
export function joinSecrets(
  kind: KindName,
  spec: Record<string, unknown>,
  values: SecretValues,
): Record<string, unknown> {
  const joined = structuredClone(spec);
  for (const path of secretPaths(kind, joined)) {
    const value = values[keyOf(path)];
    if (value !== undefined) replaceAt(joined, path, value);
  }
  return joined;
}

export function sameValues(a: SecretValues, b: SecretValues): boolean {
  return isDeepStrictEqual(a, b);
}

export function secretNameOf(object: { metadata?: unknown } | undefined): string | undefined {
  const metadata = object?.metadata;
  if (!isRecord(metadata) || !isRecord(metadata.annotations)) return undefined;
  const name = metadata.annotations[SECRET_ANNOTATION];
  return typeof name === "string" ? name : undefined;
}

/** Annotations without the server's Secret name: what a client declares and compares. */
export function withoutSecretName(
  annotations: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (annotations === undefined || !(SECRET_ANNOTATION in annotations)) return annotations;
  const { [SECRET_ANNOTATION]: _name, ...rest } = annotations;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
