import type { z } from "zod";
import { type TypeMeta, typeMeta } from "./meta";
import { isRecord } from "./sentinel";
import type { PathSegment } from "./violation";

/**
 * Walks a value alongside its zod schema, so defaults, unknown fields, secrets and rules are all driven by
 * the one schema. Values that do not have the schema's shape (wrong type, the unknown sentinel) are left
 * as they are: the walk never throws on malformed input.
 */

type Schema = z.core.$ZodType;

/** The parts of a zod schema's definition the walks read. */
export interface Def {
  type: string;
  innerType?: Schema;
  defaultValue?: unknown;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
}

export const def = (schema: Schema): Def => schema._zod.def as unknown as Def;

/** A field's schema with optional/default wrappers removed, and the default they carry (if any). */
export interface FieldSchema {
  schema: Schema;
  hasDefault: boolean;
  defaultValue: unknown;
}

const WRAPPERS: ReadonlySet<string> = new Set(["optional", "default", "prefault", "nullable", "readonly"]);

export function unwrapField(schema: Schema): FieldSchema {
  const { schema: inner, defaults } = unwrapped(schema);
  return {
    schema: inner,
    hasDefault: defaults !== undefined,
    // A copy, so no caller can change the schema's default; made only when asked for (walks unwrap every
    // field, and most never read the default: structuredClone is costly even for a small object).
    get defaultValue() {
      const value = defaults?.value;
      return typeof value === "object" && value !== null ? structuredClone(value) : value;
    },
  };
}

/** Each schema's unwrapping, worked out once: schemas are built at load and never change. */
const unwrappings = new WeakMap<Schema, { schema: Schema; defaults: { value: unknown } | undefined }>();

function unwrapped(schema: Schema): { schema: Schema; defaults: { value: unknown } | undefined } {
  const known = unwrappings.get(schema);
  if (known !== undefined) return known;
  let current = schema;
  let defaults: { value: unknown } | undefined;
  for (;;) {
    const { type, innerType, defaultValue } = def(current);
    if (innerType === undefined || !WRAPPERS.has(type)) break;
    if ((type === "default" || type === "prefault") && defaults === undefined)
      defaults = { value: defaultValue };
    current = innerType;
  }
  const found = { schema: current, defaults };
  unwrappings.set(schema, found);
  return found;
}

/** An object met during a walk, with its type's fields and metadata. */
export interface ObjectVisit {
  value: Record<string, unknown>;
  path: readonly PathSegment[];
  fields: Readonly<Record<string, Schema>>;
  meta: TypeMeta | undefined;
}

/**
 * Returns a rebuilt copy of `value`: `visit` sees every object of an object type (before its fields) and
 * returns the object to continue with; its fields, array elements and map values are then walked.
 * Keys outside the type's fields are copied untouched and not walked.
 */
export function walk(
  schema: Schema,
  value: unknown,
  visit: (object: ObjectVisit) => Record<string, unknown>,
  path: readonly PathSegment[] = [],
): unknown {
  const field = unwrapped(schema).schema;
  const { type, shape, element, valueType } = def(field);
  if (type === "object" && shape !== undefined && isRecord(value)) {
    const visited = visit({ value, path, fields: shape, meta: typeMeta.get(field) });
    const result: Record<string, unknown> = { ...visited };
    for (const key of Object.keys(shape)) {
      const fieldSchema = shape[key];
      if (fieldSchema !== undefined && Object.hasOwn(visited, key) && visited[key] !== undefined) {
        result[key] = walk(fieldSchema, visited[key], visit, [...path, key]);
      }
    }
    return result;
  }
  if (type === "array" && element !== undefined && Array.isArray(value)) {
    return value.map((item, index) => walk(element, item, visit, [...path, index]));
  }
  if (type === "record" && valueType !== undefined && isRecord(value)) {
    // A map of values that cannot hold an object type (free-form maps, string maps) walks to a copy of
    // itself: copied at once, not key by key (a map of 50,000 keys took seconds per write).
    if (!CONTAINERS.has(def(unwrapped(valueType).schema).type)) return { ...value };
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, walk(valueType, item, visit, [...path, key])]),
    );
  }
  return value;
}

/** The types a walk descends into; any other value is left as it is. */
const CONTAINERS: ReadonlySet<string> = new Set(["object", "array", "record"]);

/** Calls `see` for every object of an object type in `value`, without building anything for the caller. */
export function forEachObject(
  schema: Schema,
  value: unknown,
  see: (object: ObjectVisit) => void,
  path: readonly PathSegment[] = [],
): void {
  const field = unwrapped(schema).schema;
  const { type, shape, element, valueType } = def(field);
  if (type === "object" && shape !== undefined && isRecord(value)) {
    see({ value, path, fields: shape, meta: typeMeta.get(field) });
    for (const key of Object.keys(shape)) {
      const fieldSchema = shape[key];
      if (fieldSchema !== undefined && Object.hasOwn(value, key) && value[key] !== undefined)
        forEachObject(fieldSchema, value[key], see, [...path, key]);
    }
  } else if (type === "array" && element !== undefined && Array.isArray(value)) {
    for (const [index, item] of value.entries()) forEachObject(element, item, see, [...path, index]);
  } else if (type === "record" && valueType !== undefined && isRecord(value)) {
    if (!CONTAINERS.has(def(unwrapped(valueType).schema).type)) return;
    for (const [key, item] of Object.entries(value)) forEachObject(valueType, item, see, [...path, key]);
  }
}
