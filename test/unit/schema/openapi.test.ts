import { describe, expect, it } from "vitest";
import { z } from "zod";
import { KIND_NAMES, KINDS, type KindName, ShutdownConfigSchema } from "../../../sdk/schema";
import { LIST_MAP_KEYS } from "../../../sdk/schema/lists";
import { typeMeta } from "../../../sdk/schema/meta";
import {
  allSchemas,
  groupVersionSchemas,
  kindComponent,
  OBJECT_META,
  type OpenApiVersion,
  refPrefix,
  type SchemaObject,
} from "../../../sdk/schema/openapi";
import { uniqueNamesInfo } from "../../../sdk/schema/rules/unique-names";
import { SPECS } from "../../../sdk/schema/specs";
import { unwrapField } from "../../../sdk/schema/walk";

// The OpenAPI documents are generated from the zod schema; these tests hold them to it through zod's own
// JSON Schema export (an independent reading of the same schema): every field, type, enumeration,
// default and required field, and nothing more.

type Node = Record<string, unknown>;

function schemasOf(kind: KindName, openapi: OpenApiVersion = 3) {
  const { group, version } = KINDS[kind];
  return groupVersionSchemas(group, version, openapi);
}

/** The generated schema with every `$ref` (bare or in a one-element allOf) replaced by its target. */
function inline(node: unknown, schemas: Record<string, SchemaObject>, openapi: OpenApiVersion = 3): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, schemas, openapi));
  if (typeof node !== "object" || node === null) return node;
  const object = node as Node;
  const { allOf, $ref, ...rest } = object;
  let base: Node = {};
  const ref = typeof $ref === "string" ? $ref : (allOf as Node[] | undefined)?.[0]?.$ref;
  if (typeof ref === "string") {
    const target = schemas[ref.slice(refPrefix(openapi).length)];
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    base = inline(target, schemas, openapi) as Node;
  }
  const own = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, inline(value, schemas, openapi)]),
  );
  return { ...base, ...own, ...(own.description !== undefined && { description: own.description }) };
}

const INT32 = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };

/** What both readings must agree on; words, extensions and list types are checked separately. */
function essentials(node: unknown): unknown {
  const object = node as Node;
  const freeForm =
    object["x-kubernetes-preserve-unknown-fields"] === true ||
    (typeof object.additionalProperties === "object" &&
      object.additionalProperties !== null &&
      Object.keys(object.additionalProperties).length === 0);
  const integer32 =
    object.format === "int32" || (object.minimum === INT32.minimum && object.maximum === INT32.maximum);
  const properties = object.properties as Record<string, unknown> | undefined;
  // zod writes `additionalProperties: false` for its strict objects; unknown fields are the server's to
  // refuse or drop (fieldValidation), as Kubernetes' structural schemas leave them out.
  const additional =
    typeof object.additionalProperties === "object" ? (object.additionalProperties as Node) : undefined;
  return {
    type: object.type,
    ...(integer32 && { int32: true }),
    ...(object.enum !== undefined && { enum: [...(object.enum as string[])].sort() }),
    ...(object.default !== undefined && { default: object.default }),
    ...(Array.isArray(object.required) &&
      object.required.length > 0 && { required: [...object.required].sort() }),
    ...(properties && {
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, essentials(value)]),
      ),
    }),
    ...(object.items !== undefined && { items: essentials(object.items) }),
    ...(freeForm ? { freeForm: true } : additional !== undefined && { values: essentials(additional) }),
  };
}

function zodReading(kind: KindName): unknown {
  return z.toJSONSchema(SPECS[kind].schema, { target: "openapi-3.0", io: "input", unrepresentable: "any" });
}

/** Every property of every object in an inlined schema, with its JSON path. */
function properties(node: unknown, path = "spec"): { path: string; schema: Node }[] {
  const object = node as Node;
  const found: { path: string; schema: Node }[] = [];
  for (const [key, value] of Object.entries((object.properties ?? {}) as Record<string, Node>)) {
    found.push({ path: `${path}.${key}`, schema: value }, ...properties(value, `${path}.${key}`));
  }
  if (object.items !== undefined) found.push(...properties(object.items, `${path}[*]`));
  return found;
}

describe.each(KIND_NAMES)("the OpenAPI schema of %s", (kind) => {
  const schemas = schemasOf(kind);
  const component = schemas[kindComponent(kind)] as Node;
  const spec = inline((component.properties as Record<string, unknown>).spec, schemas) as Node;

  it("has every field of the zod schema with its type, enumeration, int32 format, default and required fields, and no other", () => {
    expect(essentials(spec)).toEqual(essentials(zodReading(kind)));
  });

  it("describes every field in words", () => {
    for (const { path, schema } of properties(spec)) {
      expect(typeof schema.description === "string" && schema.description.length > 10, path).toBe(true);
    }
  });

  it("says how every list merges, and keys exactly the lists of objects with a required name", () => {
    for (const { path, schema } of properties(spec)) {
      if (schema.type !== "array") continue;
      const items = schema.items as Node;
      const keyedByName =
        items.type === "object" && (items.required as string[] | undefined)?.includes("name");
      if (keyedByName) {
        expect(schema["x-kubernetes-list-type"], path).toBe("map");
        expect(schema["x-kubernetes-list-map-keys"], path).toEqual(["name"]);
      } else {
        expect(schema["x-kubernetes-list-type"], path).toBe("atomic");
      }
    }
  });

  it("names its kind, its metadata type and the int32 format the way kubectl reads them", () => {
    const component = schemas[kindComponent(kind)] as Node;
    const { group, version } = KINDS[kind];
    expect(component["x-kubernetes-group-version-kind"]).toEqual([{ group, kind, version }]);
    expect((component.properties as Record<string, Node>).metadata).toMatchObject({
      allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
    });
    expect(schemas[OBJECT_META]).toBeDefined();
  });
});

describe("the OpenAPI documents", () => {
  it.each([2, 3] as const)("resolve every $ref within the document (OpenAPI %i)", (openapi) => {
    for (const kind of KIND_NAMES) {
      const schemas = openapi === 2 ? allSchemas(2) : schemasOf(kind);
      const refs = JSON.stringify(schemas).match(/"\$ref":"[^"]+"/g) ?? [];
      for (const ref of refs) {
        const name = ref.slice(8, -1).slice(refPrefix(openapi).length);
        expect(schemas[name], ref).toBeDefined();
      }
    }
  });

  it("Swagger 2.0 puts words beside a $ref instead of an allOf", () => {
    expect(JSON.stringify(allSchemas(2))).not.toContain("allOf");
  });
});

describe("words", () => {
  it("come from the schema's own metadata when it has them, before the table in descriptions.ts", () => {
    const field = ShutdownConfigSchema.shape.drainTimeout;
    z.globalRegistry.add(field, { description: "Words the schema carries." });
    try {
      const schemas = schemasOf("Proxy");
      const shutdown = schemas["dev.example.core.v1alpha2.ShutdownConfig"] as Node;
      const words = (shutdown.properties as Record<string, Node>).drainTimeout?.description;
      expect(words).toMatch(/^Words the schema carries\. A duration is/);
    } finally {
      z.globalRegistry.remove(field);
    }
  });
});

describe("LIST_MAP_KEYS", () => {
  const elementTypes = new Map<string, z.core.$ZodType>();
  const visit = (schema: z.core.$ZodType, seen: Set<unknown>) => {
    const inner = unwrapField(schema).schema;
    if (seen.has(inner)) return;
    seen.add(inner);
    const def = inner._zod.def as unknown as {
      type: string;
      shape?: Record<string, z.core.$ZodType>;
      element?: z.core.$ZodType;
    };
    if (def.type === "object") for (const field of Object.values(def.shape ?? {})) visit(field, seen);
    if (def.type === "array" && def.element) {
      const element = unwrapField(def.element).schema;
      const name = typeMeta.get(element)?.typeName;
      if (name !== undefined) elementTypes.set(name, element);
      visit(def.element, seen);
    }
  };
  for (const kind of KIND_NAMES) visit(SPECS[kind].schema, new Set());

  it("names the element types of lists whose items have a required name, and only those", () => {
    const withName = [...elementTypes].filter(([, schema]) => {
      const shape = (schema._zod.def as unknown as { shape: Record<string, z.core.$ZodType> }).shape;
      return shape.name !== undefined && unwrapField(shape.name).schema === shape.name;
    });
    expect(Object.keys(LIST_MAP_KEYS).sort()).toEqual(withName.map(([name]) => name).sort());
    for (const keys of Object.values(LIST_MAP_KEYS)) expect(keys).toEqual(["name"]);
  });

  it("keys only lists whose names the unique-names rule keeps unique", () => {
    for (const field of ["env", "bindings"]) expect(uniqueNamesInfo.path).toContain(`${field}[*].name`);
  });
});
