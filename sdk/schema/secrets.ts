import type { z } from "zod";
import type { KindName } from "./kinds";
import { typeMeta } from "./meta";
import type { SecretTree } from "./secret-tree";
import { isUnknown } from "./sentinel";
import { specSchema } from "./specs";
import type { PathSegment } from "./violation";
import { def, forEachObject, unwrapField, walk } from "./walk";

/** What the API returns in place of each secret value; secrets are never echoed. */
export const PLACEHOLDERS = Object.freeze({
  apiKey: "<API_KEY>",
  accessToken: "<ACCESS_TOKEN>",
  passwordData: "<PASSWORD_DATA>",
  refreshToken: "<REFRESH_TOKEN>",
} as const);

export interface SecretField {
  /** The API-SPEC type that holds the field. */
  type: "APIKey" | "OCICredentials";
  field: string;
  /** The placeholder returned instead of the value; undefined for write-only fields, which are never returned. */
  placeholder: string | undefined;
}

/** Every secret field of the API, wherever its type appears. */
export const SECRET_FIELDS: readonly SecretField[] = Object.freeze([
  { type: "APIKey", field: "key", placeholder: PLACEHOLDERS.apiKey },
  { type: "APIKey", field: "keyData", placeholder: PLACEHOLDERS.apiKey },
  { type: "OCICredentials", field: "accessToken", placeholder: PLACEHOLDERS.accessToken },
  { type: "OCICredentials", field: "password", placeholder: undefined },
  { type: "OCICredentials", field: "passwordData", placeholder: PLACEHOLDERS.passwordData },
  { type: "OCICredentials", field: "refreshToken", placeholder: PLACEHOLDERS.refreshToken },
]);

const PLACEHOLDER_VALUES: ReadonlySet<unknown> = new Set(Object.values(PLACEHOLDERS));

export function isPlaceholder(value: unknown): boolean {
  return PLACEHOLDER_VALUES.has(value);
}

function secretsOf(typeName: string | undefined): readonly SecretField[] {
  return SECRET_FIELDS.filter(({ type }) => type === typeName);
}

/** Where a spec of `kind` can hold secrets (see secret-tree.ts), or undefined when it holds none. */
export function secretTree(kind: KindName): SecretTree | undefined {
  return secretTreeOf(specSchema(kind));
}

function secretTreeOf(schema: z.core.$ZodType): SecretTree | undefined {
  const type = unwrapField(schema).schema;
  const { shape, element, valueType } = def(type);
  const secrets = secretsOf(typeMeta.get(type)?.typeName).map(({ field }) => field);
  const fields = Object.entries(shape ?? {}).flatMap(([key, field]) => {
    const tree = secretTreeOf(field);
    return tree === undefined ? [] : [[key, tree] as const];
  });
  const itemSchema = element ?? valueType;
  const items = itemSchema && secretTreeOf(itemSchema);
  if (secrets.length === 0 && fields.length === 0 && items === undefined) return undefined;
  return {
    ...(secrets.length > 0 && { secrets }),
    ...(fields.length > 0 && { fields: Object.fromEntries(fields) }),
    ...(items !== undefined && { items }),
  };
}

/** Concrete paths (relative to the spec) of the secret values present, e.g. ["source", "oci", "credentials", "password"]. */
export function secretPaths(kind: KindName, spec: unknown): (string | number)[][] {
  const paths: PathSegment[][] = [];
  forEachObject(specSchema(kind), spec, ({ value, path, meta }) => {
    for (const { field } of secretsOf(meta?.typeName)) {
      if (value[field] !== undefined) paths.push([...path, field]);
    }
  });
  return paths;
}

/**
 * A copy with every secret replaced by its placeholder and write-only fields (password) removed.
 * The unknown sentinel is kept: it is not a secret, and preview needs to see it.
 */
export function redactSecrets<T>(kind: KindName, spec: T): T {
  return walk(specSchema(kind), spec, ({ value, meta }) => {
    const redacted: Record<string, unknown> = { ...value };
    for (const { field, placeholder } of secretsOf(meta?.typeName)) {
      if (redacted[field] === undefined || isUnknown(redacted[field])) continue;
      if (placeholder === undefined) delete redacted[field];
      else redacted[field] = placeholder;
    }
    return redacted;
  }) as T;
}

/**
 * A copy where each OCICredentials' write-only password has moved to passwordData, unless passwordData is
 * already set (it takes precedence); password is removed either way.
 */
export function moveWriteOnlyPasswords<T>(kind: KindName, spec: T): T {
  return walk(specSchema(kind), spec, ({ value, meta }) => {
    if (meta?.typeName !== "OCICredentials" || value.password === undefined) return value;
    const { password, ...rest } = value;
    return rest.passwordData === undefined ? { ...rest, passwordData: password } : rest;
  }) as T;
}
