// Every field of every kind's spec, as the generated documentation reads them: one walk over the zod schema,
// shared by the defaults table (sdk/schema/README.md) and the resource reference (docs/reference.md).
import type { z } from "zod";
import { KIND_NAMES, type KindName } from "../../sdk/schema";
import { typeMeta } from "../../sdk/schema/meta";
import { specSchema } from "../../sdk/schema/specs";
import { def, unwrapField } from "../../sdk/schema/walk";

type Schema = z.core.$ZodType;

/** A field of an object type, where a kind's spec reaches it. */
export interface SchemaField {
  kind: KindName;
  /**
   * From the object root, as rule paths are written: `spec.template.spec.env[*].name` (`[*]` is any list
   * item; a map's values are under `*`, any key).
   */
  path: string;
  /** The API type that declares the field, its schema, and the field's name in it. */
  typeName: string;
  parent: Schema;
  field: string;
  /** The field's schema as declared (optional and default wrappers included). */
  schema: Schema;
  /** The schema of its value, without the wrappers. */
  value: Schema;
  hasDefault: boolean;
  defaultValue: unknown;
}

/** Every field the specs of `kinds` reach, depth first in declaration order, once per place it appears. */
export function schemaFields(kinds: readonly KindName[] = KIND_NAMES): SchemaField[] {
  const fields: SchemaField[] = [];
  const visit = (kind: KindName, schema: Schema, path: string, within: ReadonlySet<Schema>): void => {
    const { schema: value } = unwrapField(schema);
    // A type that reaches itself would never end: its second appearance is not walked into.
    if (within.has(value)) return;
    const { shape, element, valueType } = def(value);
    const typeName = typeMeta.get(value)?.typeName;
    const inside = new Set([...within, value]);
    if (shape !== undefined && typeName !== undefined) {
      for (const [field, fieldSchema] of Object.entries(shape)) {
        const unwrapped = unwrapField(fieldSchema);
        const fieldPath = `${path}.${field}`;
        fields.push({
          kind,
          path: fieldPath,
          typeName,
          parent: value,
          field,
          schema: fieldSchema,
          value: unwrapped.schema,
          hasDefault: unwrapped.hasDefault,
          defaultValue: unwrapped.defaultValue,
        });
        visit(kind, fieldSchema, fieldPath, inside);
      }
    }
    if (element !== undefined) visit(kind, element, `${path}[*]`, inside);
    if (valueType !== undefined) visit(kind, valueType, `${path}.*`, inside);
  };
  for (const kind of kinds) visit(kind, specSchema(kind), "spec", new Set());
  return fields;
}
