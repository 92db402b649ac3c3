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
  let current = schema;
  let found: { value: unknown } | undefined;
  for (;;) {
    const { type, innerType, defaultValue } = def(current);
    if (innerType === undefined || !WRAPPERS.has(type)) {
      return {
        schema: current,
        hasDefault: found !== undefined,
        // A copy, so no caller can change the schema's default; only objects need one (walks call this
        // for every field, and structuredClone is costly even for undefined).
        defaultValue:
          typeof found?.value === "object" && found.value !== null
            ? structuredClone(found.value)
            : found?.value,
      };
    }
    if ((type === "default" || type === "prefault") && found === undefined) found = { value: defaultValue };
    current = innerType;
  }
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
  const field = unwrapField(schema).schema;
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
    if (!CONTAINERS.has(def(unwrapField(valueType).schema).type)) return { ...value };
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
  walk(
    schema,
    value,
    (object) => {
      see(object);
      return object.value;
    },
    path,
  );
}
