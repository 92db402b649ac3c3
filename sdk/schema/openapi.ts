import { z } from "zod";
import { KIND_DESCRIPTIONS, typeDocs } from "./descriptions";
import { KIND_NAMES, KINDS, type KindInfo, type KindName } from "./kinds";
import { LIST_MAP_KEYS, listMapKeys } from "./lists";
import { typeMeta } from "./meta";
import { RULE_INFOS_BY_ID } from "./rules/catalog";
import { SPECS } from "./specs";
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

export type OpenApiVersion = 2 | 3;
export type SchemaObject = Record<string, unknown>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;

/** Where a document keeps its schemas, as a `$ref` prefix. */
export function refPrefix(openapi: OpenApiVersion): string {
  return openapi === 3 ? "#/components/schemas/" : "#/definitions/";
}

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
        status: {
          description:
            "The observed state, written by the server (conditions in the Kubernetes shape, observedGeneration). Clients cannot write it.",
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
        },
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

/** The Kubernetes metadata types the kinds reference, with the fields this API serves. */
function metaSchemas(openapi: OpenApiVersion): Record<string, SchemaObject> {
  const ref = (name: string) => ({ $ref: `${refPrefix(openapi)}${META}.${name}` });
  const described = (name: string, description: string) =>
    openapi === 3 ? { allOf: [ref(name)], description } : { ...ref(name), description };
  const stringMap = { type: "object", additionalProperties: { type: "string", default: "" } };
  return {
    [OBJECT_META]: {
      description:
        "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
      type: "object",
      properties: {
        annotations: {
          ...stringMap,
          description:
            "Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.",
        },
        creationTimestamp: described("Time", "When the object was created; set by the server, read-only."),
        deletionGracePeriodSeconds: {
          description:
            "The grace period a deletion asked for (gracePeriodSeconds), while the object terminates; set by the server, read-only.",
          type: "integer",
          format: "int64",
        },
        deletionTimestamp: described(
          "Time",
          "When the object's deletion was requested, while a two-phase deletion is in progress; set by the server, read-only.",
        ),
        finalizers: {
          description:
            "Must be empty before the object is deleted from the registry: a deletion only sets deletionTimestamp while any entry is left, and whoever finished its work removes its entry with an update.",
          type: "array",
          items: { type: "string", default: "" },
          "x-kubernetes-list-type": "set",
          "x-kubernetes-patch-strategy": "merge",
        },
        generateName: {
          description:
            "An optional prefix, used by the server to generate a unique name only if the name field has not been provided.",
          type: "string",
        },
        generation: {
          description:
            "A sequence number representing a specific generation of the desired state; it goes up by one on every spec change. Read-only.",
          type: "integer",
          format: "int64",
        },
        labels: {
          ...stringMap,
          description:
            "Map of string keys and values that can be used to organize and categorize (scope and select) objects.",
        },
        managedFields: {
          description:
            "Maps the workflow id (manager) and operation to the set of fields it manages (server-side apply). Written by the server.",
          type: "array",
          items: ref("ManagedFieldsEntry"),
          "x-kubernetes-list-type": "atomic",
        },
        name: {
          description:
            "Name must be unique within the kind; a DNS-1123 subdomain. Required when creating, unless generateName is used. Cannot be updated.",
          type: "string",
        },
        ownerReferences: {
          description:
            "List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected.",
          type: "array",
          items: ref("OwnerReference"),
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["uid"],
          "x-kubernetes-patch-merge-key": "uid",
          "x-kubernetes-patch-strategy": "merge",
        },
        resourceVersion: {
          description:
            "An opaque value that represents the internal version of this object, used for optimistic concurrency. Read-only.",
          type: "string",
        },
        uid: {
          description: "The unique identifier of this object over time; set by the server, read-only.",
          type: "string",
        },
      },
    },
    [LIST_META]: {
      description: "ListMeta describes metadata that synthetic resources must have, including lists.",
      type: "object",
      properties: {
        continue: {
          description: "Set when more items follow: pass it as the continue parameter to get the next page.",
          type: "string",
        },
        remainingItemCount: {
          description: "The number of items after this page, when the list is not filtered.",
          type: "integer",
          format: "int64",
        },
        resourceVersion: {
          description: "The resourceVersion of the latest write when the list was read.",
          type: "string",
        },
      },
    },
    [`${META}.OwnerReference`]: {
      description: "OwnerReference contains enough information to let you identify an owning object.",
      type: "object",
      required: ["apiVersion", "kind", "name", "uid"],
      properties: {
        apiVersion: { description: "API version of the referent.", type: "string" },
        blockOwnerDeletion: {
          description: "If true, the owner cannot be deleted before this reference is removed.",
          type: "boolean",
        },
        controller: {
          description: "If true, this reference points to the managing controller.",
          type: "boolean",
        },
        kind: { description: "Kind of the referent.", type: "string" },
        name: { description: "Name of the referent.", type: "string" },
        uid: { description: "UID of the referent.", type: "string" },
      },
      "x-kubernetes-map-type": "atomic",
    },
    [`${META}.ManagedFieldsEntry`]: {
      description:
        "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.",
      type: "object",
      properties: {
        apiVersion: { description: "The version of the resource the field set applies to.", type: "string" },
        fieldsType: { description: 'The format of fieldsV1: always "FieldsV1".', type: "string" },
        fieldsV1: described("FieldsV1", "The set of fields this manager manages."),
        manager: { description: "An identifier of the workflow managing these fields.", type: "string" },
        operation: {
          description: "The type of operation which led to this entry: Apply or Update.",
          type: "string",
        },
        subresource: { description: "The subresource used to update the object, if any.", type: "string" },
        time: described("Time", "When the fields of this entry last changed."),
      },
    },
    [`${META}.FieldsV1`]: {
      description:
        "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format: each key is a field (f:<name>), a list item by its keys (k:<keys>), a value (v:<value>) or the field itself (.).",
      type: "object",
    },
    [`${META}.Time`]: {
      description: "Time is a wrapper around time.Time, serialized as RFC 3339.",
      type: "string",
      format: "date-time",
    },
  };
}
