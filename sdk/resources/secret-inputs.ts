import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { KindName } from "../schema";
import { typeMeta } from "../schema/meta";
import { SECRET_FIELDS } from "../schema/secrets";
import { specSchema } from "../schema/specs";
import { unwrapField } from "../schema/walk";

type Schema = z.core.$ZodType;
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
}

const secretFieldsByType = new Map<string, Set<string>>();
for (const { type, field } of SECRET_FIELDS) {
  secretFieldsByType.set(type, (secretFieldsByType.get(type) ?? new Set()).add(field));
}

const defOf = (schema: Schema) => unwrapField(schema).schema._zod.def as unknown as Def;
const secretFieldsOf = (schema: Schema) =>
  secretFieldsByType.get(typeMeta.get(unwrapField(schema).schema)?.typeName ?? "");

const containsSecretsCache = new WeakMap<Schema, boolean>();

/** Whether a value of this schema can hold a secret field somewhere inside it. */
function containsSecrets(schema: Schema): boolean {
  const cached = containsSecretsCache.get(schema);
  if (cached !== undefined) return cached;
  const { shape, element, valueType } = defOf(schema);
  const children = [...Object.values(shape ?? {}), element, valueType].filter((s) => s !== undefined);
  const result = secretFieldsOf(schema) !== undefined || children.some(containsSecrets);
  containsSecretsCache.set(schema, result);
  return result;
}

/** Plain data the program wrote literally, as opposed to an Output or a promise of one. */
function isLiteral(value: unknown): value is Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Marks the spec's secret fields with `pulumi.secret()` so that Pulumi encrypts them in state. Where the
 * program passes an Output (or a promise) for a part of the spec that can hold secrets, that whole part is
 * marked, since what is inside cannot be seen before it resolves.
 */
export function markSecretInputs<T>(kind: KindName, spec: T): T {
  return mark(specSchema(kind), spec) as T;
}

function mark(schema: Schema, value: unknown): unknown {
  if (value === undefined || value === null || !containsSecrets(schema)) return value;
  if (!isLiteral(value)) return typeof value === "object" ? pulumi.secret(value) : value;
  const { shape, element, valueType } = defOf(schema);
  if (Array.isArray(value)) return element ? value.map((item) => mark(element, item)) : value;
  const secretFields = secretFieldsOf(schema);
  const marked: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const fieldSchema = shape ? shape[key] : valueType;
    if (secretFields?.has(key) && item !== undefined) marked[key] = pulumi.secret(item);
    else marked[key] = fieldSchema ? mark(fieldSchema, item) : item;
  }
  return marked;
}
