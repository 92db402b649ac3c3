// The Kubernetes metadata types of the OpenAPI documents (openapi.ts), under the names kubectl knows.

export type OpenApiVersion = 2 | 3;
export type SchemaObject = Record<string, unknown>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;

/** Where a document keeps its schemas, as a `$ref` prefix. */
export function refPrefix(openapi: OpenApiVersion): string {
  return openapi === 3 ? "#/components/schemas/" : "#/definitions/";
}

/** The Kubernetes metadata types the kinds reference, with the fields this API serves. */
export function metaSchemas(openapi: OpenApiVersion): Record<string, SchemaObject> {
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
            "0 while the object terminates: what holds it is its finalizers (a Proxy's drain among them), whatever grace the deletion asked for; set by the server, read-only.",
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
