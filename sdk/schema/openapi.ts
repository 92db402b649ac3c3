import { z } from "zod";
import { KIND_DESCRIPTIONS, typeDocs } from "./descriptions";
import { KIND_NAMES, KINDS, type KindInfo, type KindName } from "./kinds";
import { LIST_MAP_KEYS, listMapKeys } from "./lists";
import { typeMeta } from "./meta";
import {
  LIST_META,
  metaSchemas,
  OBJECT_META,
  type OpenApiVersion,
  refPrefix,
  type SchemaObject,
} from "./openapi-meta";
import { RULE_INFOS_BY_ID } from "./rules/catalog";
import { SPECS } from "./specs";
import { StatusSchema } from "./status-schema";
import { unwrapField } from "./walk";

/**
 * The OpenAPI schemas of the API, generated from the zod schema: one component per object type (named
 * after its API type), the kinds with `x-kubernetes-group-version-kind`, their lists, and the Kubernetes
 * metadata types they reference under the names kubectl knows
 * (`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`). Types, enumerations, int32 formats, defaults and
 * required fields come from zod; words from the schema's own metadata (`.describe()`, `.meta()`) where it has
 * them, else from `descriptions.ts`, and from the rules that check a field or a type. OpenAPI 3.0
 * (`components.schemas`, `$ref` wrapped in `allOf` when it has siblings, as Kubernetes publishes it) and
 * Swagger 2.0 (`definitions`) come from the same walk.
 */

export {
  LIST_META,
  OBJECT_META,
  type OpenApiVersion,
  refPrefix,
  type SchemaObject,
} from "./openapi-meta";

/** `compute.example.dev`, `v1alpha1`, `BundleRef` -> `dev.example.compute.v1alpha1.BundleRef`. */
export function componentName(group: string, version: string, typeName: string): string {
  return `${group.split(".").reverse().join(".")}.${version}.${typeName}`;
}

export interface GroupVersion {
  group: string;
  version: string;
  kinds: readonly KindInfo[];
}

/** Every group version the API serves, with its kinds, in KINDS order. */
export function groupVersions(): GroupVersion[] {
  const found = new Map<string, GroupVersion>();
  for (const kind of KIND_NAMES) {
    const info = KINDS[kind];
    const entry = found.get(info.apiVersion) ?? { group: info.group, version: info.version, kinds: [] };
    found.set(info.apiVersion, { ...entry, kinds: [...entry.kinds, info] });
  }
  return [...found.values()];
}

/** The schemas one group version's document needs: its kinds, their lists and types, and the metadata types. */
export function groupVersionSchemas(group: string, version: string, openapi: OpenApiVersion) {
  const builder = new SchemaBuilder(group, version, openapi);
  for (const info of KIND_NAMES.map((kind) => KINDS[kind])) {
    if (info.group === group && info.version === version) builder.addKind(info.kind);
  }
  return { ...builder.schemas, ...metaSchemas(openapi) };
}

/** The schemas of every group version (Swagger 2.0 keeps them all in one document). */
export function allSchemas(openapi: OpenApiVersion): Record<string, SchemaObject> {
  return Object.assign(
    {},
    ...groupVersions().map(({ group, version }) => groupVersionSchemas(group, version, openapi)),
  );
}

/** The component name of a kind's schema. */
export function kindComponent(kind: KindName): string {
  const { group, version } = KINDS[kind];
  return componentName(group, version, kind);
}

/** The component name of a kind's list. */
export function listComponent(kind: KindName): string {
  const { group, version, listKind } = KINDS[kind];
  return componentName(group, version, listKind);
}

interface Def {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  entries?: Record<string, string | number>;
  format?: string;
  innerType?: z.core.$ZodType;
  checks?: readonly { _zod: { def: { params?: { rule?: string } } } }[];
}

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;

/** Whether a field must be present in what clients write: neither optional nor defaulted. */
export function isRequiredField(schema: z.core.$ZodType): boolean {
  let current: z.core.$ZodType | undefined = schema;
  while (current !== undefined) {
    const { type, innerType } = defOf(current);
    if (type === "optional" || type === "default" || type === "prefault") return false;
    if (!["nullable", "readonly"].includes(type)) return true;
    current = innerType;
  }
  return true;
}

function ruleTexts(schema: z.core.$ZodType): string[] {
  const ids = (defOf(schema).checks ?? []).flatMap((check) => check._zod.def.params?.rule ?? []);
  return ids.flatMap((id) => RULE_INFOS_BY_ID.get(id)?.description ?? []);
}

/** Words the schema carries itself (zod's `.describe()` or `.meta({ description })`) win over the table's. */
function describedBySchema(schema: z.core.$ZodType): string | undefined {
  return z.globalRegistry.get(schema)?.description;
}

function sentences(...parts: (string | undefined)[]): string | undefined {
  const text = parts.filter((part) => part !== undefined && part !== "").join(" ");
  return text === "" ? undefined : text;
}

function defaultText(value: unknown): string {
  return `Defaults to ${JSON.stringify(value)}.`;
}

class SchemaBuilder {
  readonly schemas: Record<string, SchemaObject> = {};
  private readonly prefix: string;

  constructor(
    private readonly group: string,
    private readonly version: string,
    private readonly openapi: OpenApiVersion,
  ) {
    this.prefix = refPrefix(openapi);
  }

  addKind(kind: KindName): void {
    const info = KINDS[kind];
    const specSchema = SPECS[kind].schema;
    const gvk = (name: string) => [{ group: info.group, kind: name, version: info.version }];
    const spec = this.field(specSchema, "The desired state, written by clients.");
    this.schemas[kindComponent(kind)] = {
      description: KIND_DESCRIPTIONS[kind],
      type: "object",
      properties: {
        apiVersion: {
          description: `APIVersion defines the versioned schema of this representation of an object: "${info.apiVersion}".`,
          type: "string",
        },
        kind: { description: `Kind is the type of the object: "${kind}".`, type: "string" },
        metadata: this.wrap(this.ref(OBJECT_META), {
          description:
            "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
        }),
        spec,
        // Its words first, as the other fields of the kind.
        status: { description: describedBySchema(StatusSchema), ...this.value(StatusSchema) },
      },
      ...(isRequiredField(specSchema) && this.hasRequiredFields(specSchema) && { required: ["spec"] }),
      "x-kubernetes-group-version-kind": gvk(kind),
    };
    this.schemas[listComponent(kind)] = {
      description: `A list of ${info.plural}.`,
      type: "object",
      required: ["items"],
      properties: {
        apiVersion: { description: "APIVersion of the list.", type: "string" },
        items: { description: `The ${info.plural}.`, type: "array", items: this.ref(kindComponent(kind)) },
        kind: { description: `"${info.listKind}".`, type: "string" },
        metadata: this.wrap(this.ref(LIST_META), {
          description: "Standard list metadata: resourceVersion and the continue token of the next page.",
        }),
      },
      "x-kubernetes-group-version-kind": gvk(info.listKind),
    };
  }

  private hasRequiredFields(schema: z.core.$ZodType): boolean {
    const { shape } = defOf(unwrapField(schema).schema);
    return Object.values(shape ?? {}).some(isRequiredField);
  }

  private ref(name: string): SchemaObject {
    return { $ref: `${this.prefix}${name}` };
  }

  /** A schema with words or a default beside it; a `$ref` cannot carry siblings in OpenAPI 3.0. */
  private wrap(base: SchemaObject, extras: SchemaObject): SchemaObject {
    const defined = Object.fromEntries(Object.entries(extras).filter(([, value]) => value !== undefined));
    if (Object.keys(defined).length === 0) return base;
    if (base.$ref !== undefined && this.openapi === 3) return { allOf: [base], ...defined };
    return { ...base, ...defined };
  }

  /** A field of an object type: its value's schema, with its words, rules and default. */
  private field(schema: z.core.$ZodType, words: string | undefined): SchemaObject {
    const { schema: inner, hasDefault, defaultValue } = unwrapField(schema);
    const value = this.value(inner);
    const own = describedBySchema(schema) ?? describedBySchema(inner) ?? words;
    // kubectl explain prints a referenced type's words after the field's: the same sentence twice otherwise.
    const typeWords =
      value.$ref !== undefined ? (describedBySchema(inner) ?? typeDocs(inner)?.description) : undefined;
    const description = sentences(
      own === typeWords ? undefined : own,
      ...ruleTexts(inner),
      hasDefault ? defaultText(defaultValue) : "",
    );
    return this.wrap(value, { description, default: hasDefault ? defaultValue : undefined });
  }

  private value(schema: z.core.$ZodType): SchemaObject {
    const def = defOf(schema);
    switch (def.type) {
      case "string":
        return { type: "string" };
      case "boolean":
        return { type: "boolean" };
      case "enum":
        return { type: "string", enum: Object.values(def.entries ?? {}) };
      case "number":
        if (def.format === "int32") return { type: "integer", format: "int32" };
        if (def.format === "safeint") return { type: "integer", format: "int64" };
        return { type: "number" };
      case "array": {
        const element = unwrapField(def.element as z.core.$ZodType).schema;
        const keys = listMapKeys(schema);
        return {
          type: "array",
          items: this.value(element),
          ...(keys === undefined
            ? { "x-kubernetes-list-type": "atomic" }
            : { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": [...keys] }),
        };
      }
      case "record": {
        const valueType = unwrapField(def.valueType as z.core.$ZodType).schema;
        if (["unknown", "any"].includes(defOf(valueType).type)) {
          return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
        }
        return { type: "object", additionalProperties: this.value(valueType) };
      }
      case "unknown":
      case "any":
        return { "x-kubernetes-preserve-unknown-fields": true };
      case "object":
        return this.objectType(schema);
      default:
        throw new TypeError(`the OpenAPI generator has no form for the zod type "${def.type}"`);
    }
  }

  /** A `$ref` to the component of an object type, built the first time it is met. */
  private objectType(schema: z.core.$ZodType): SchemaObject {
    const meta = typeMeta.get(schema);
    if (meta === undefined) throw new TypeError("every object of the schema is an objectType with a name");
    const name = componentName(this.group, this.version, meta.typeName);
    if (this.schemas[name] !== undefined) return this.ref(name);
    this.schemas[name] = {}; // reserved first: a type that reaches itself gets a $ref, not a loop
    const docs = typeDocs(schema);
    const shape = defOf(schema).shape ?? {};
    const properties: Record<string, SchemaObject> = {};
    for (const [key, fieldSchema] of Object.entries(shape)) {
      properties[key] = this.field(fieldSchema, docs?.fields[key]);
    }
    const required = Object.keys(shape).filter((key) => isRequiredField(shape[key] as z.core.$ZodType));
    const rules = (meta.rules ?? []).map((rule) => rule.info.description);
    const keyed = LIST_MAP_KEYS[meta.typeName];
    this.schemas[name] = {
      description: sentences(
        describedBySchema(schema) ?? docs?.description,
        keyed === undefined
          ? undefined
          : `Items of a list of ${meta.typeName} are merged by ${keyed.join(", ")}.`,
        ...rules,
      ),
      type: "object",
      properties,
      ...(required.length > 0 && { required }),
    };
    return this.ref(name);
  }
}
