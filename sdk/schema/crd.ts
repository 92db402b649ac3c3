import { type CelValidation, celValidations } from "./cel";
import { KINDS, type KindName } from "./kinds";
import { groupVersionSchemas, kindComponent, refPrefix, type SchemaObject } from "./openapi";
import type { PathSegment } from "./violation";

/**
 * The CustomResourceDefinitions (`apiextensions.k8s.io/v1`) that let a real Kubernetes API server serve the
 * kinds, built from the same OpenAPI schemas as the local server's `/openapi/v3` (openapi.ts walks the zod
 * schema once): each kind's component with its `$ref`s written in place, since a CRD's `openAPIV3Schema`
 * must be one structural schema with no references, plus the rules CEL can say (cel.ts). Cluster-scoped like
 * the local server's resources, with the `status` subresource.
 */

/** A column of `kubectl get`, as a CRD declares it: where its cell comes from is a JSONPath. */
export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  description: string;
  priority: number;
  jsonPath: string;
}

export function customResourceDefinition(
  kind: KindName,
  printerColumns: readonly PrinterColumn[],
): SchemaObject {
  const { group, version, plural, listKind } = KINDS[kind];
  const schemas = groupVersionSchemas(group, version, 3);
  let kindSchema = inline(schemas, schemas[kindComponent(kind)], []);
  for (const { at, validations, requires } of celValidations(kind)) {
    kindSchema = withValidations(kindSchema, at, validations, requires);
  }
  // The API server names the kind of a CRD's objects itself, and refuses the extension in the schema.
  const { "x-kubernetes-group-version-kind": _gvk, ...root } = kindSchema;
  const properties = root.properties as Record<string, SchemaObject>;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, listKind, plural, singular: kind.toLowerCase() },
      scope: "Cluster",
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          // The API server owns metadata's schema: a CRD may only restrict name and generateName.
          schema: {
            openAPIV3Schema: { ...root, properties: { ...properties, metadata: { type: "object" } } },
          },
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns,
        },
      ],
    },
  };
}

/**
 * `schema` with every `$ref` replaced by the schema it names. OpenAPI 3.0 wraps a reference that has
 * siblings (words, a default) in `allOf`; a structural schema allows neither, so the siblings go beside the
 * named schema's own keys, and win over its words.
 */
function inline(
  schemas: Record<string, SchemaObject>,
  schema: unknown,
  through: readonly string[],
): SchemaObject {
  const node = schema as SchemaObject;
  const wrapped =
    Array.isArray(node.allOf) && node.allOf.length === 1 ? (node.allOf[0] as SchemaObject) : undefined;
  const ref = (wrapped ?? node).$ref;
  if (typeof ref === "string") {
    const name = ref.slice(refPrefix(3).length);
    // A type that contains itself has no finite inline form; the schema has none today.
    if (through.includes(name))
      throw new TypeError(`the CRD schema cannot inline the recursive type ${name}`);
    const { allOf: _allOf, $ref: _ref, ...siblings } = node;
    return { ...inline(schemas, schemas[name], [...through, name]), ...siblings };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, nested(schemas, key, value, through)]),
  );
}

function nested(
  schemas: Record<string, SchemaObject>,
  key: string,
  value: unknown,
  through: readonly string[],
) {
  if (key === "properties") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([name, field]) => [
        name,
        inline(schemas, field, through),
      ]),
    );
  }
  return key === "items" || key === "additionalProperties" ? inline(schemas, value, through) : value;
}

/**
 * A copy of `schema` whose object at `path` (field names; a number for a list's items) carries `validations`,
 * and no longer lists `requires` as required: those rules report the missing field where the schema does.
 */
function withValidations(
  schema: SchemaObject,
  path: readonly PathSegment[],
  validations: CelValidation[],
  requires: readonly string[],
): SchemaObject {
  const [step, ...rest] = path;
  if (step === undefined)
    return { ...withoutRequired(schema, requires), "x-kubernetes-validations": validations };
  if (typeof step === "number") {
    const items = schema.items as SchemaObject | undefined;
    if (items === undefined)
      throw new TypeError("a CEL rule sits in the items of a field that is not a list");
    return { ...schema, items: withValidations(items, rest, validations, requires) };
  }
  const properties = schema.properties as Record<string, SchemaObject> | undefined;
  const field = properties?.[step];
  if (field === undefined)
    throw new TypeError(`a CEL rule sits at ${step}, which is not a field of the schema`);
  return {
    ...schema,
    properties: { ...properties, [step]: withValidations(field, rest, validations, requires) },
  };
}

/** `schema` without `fields` in its `required`; a field it does not require is a mistake in a CEL rule. */
function withoutRequired(schema: SchemaObject, fields: readonly string[]): SchemaObject {
  if (fields.length === 0) return schema;
  const required = (schema.required as string[] | undefined) ?? [];
  const missing = fields.filter((field) => !required.includes(field));
  if (missing.length > 0)
    throw new TypeError(
      `a CEL rule reports the required ${missing.join(", ")}, which the schema does not require`,
    );
  const rest = required.filter((field) => !fields.includes(field));
  const { required: _required, ...others } = schema;
  return rest.length > 0 ? { ...others, required: rest } : others;
}
