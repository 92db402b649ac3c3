import type { z } from "zod";
import type { KindName } from "../../../sdk/schema";
import { listMapKeys } from "../../../sdk/schema/lists";
import { SPECS } from "../../../sdk/schema/specs";
import { unwrapField } from "../../../sdk/schema/walk";

/**
 * How the parts of an object merge and are owned under server-side apply, read from the zod schema:
 * objects of a named type are structs (each field merged and owned on its own), string maps are granular
 * maps (each key on its own), lists of a type `LIST_MAP_KEYS` names are map-lists (each item on its own,
 * by its keys), and everything else (scalars, other lists, free-form values) is atomic: set and owned whole.
 */
export type Structure =
  | { type: "struct"; fields: Readonly<Record<string, Structure>> }
  | { type: "map"; values: Structure }
  | { type: "list"; keys: readonly string[]; items: Structure }
  | { type: "atomic" };

const ATOMIC: Structure = { type: "atomic" };
const STRING_MAP: Structure = { type: "map", values: ATOMIC };

interface Def {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
}

/**
 * A value with no schema of its own (`x-kubernetes-preserve-unknown-fields`), as structured-merge-diff
 * deduces one: an object is a granular map whose values are deduced in turn, anything else is atomic.
 */
const DEDUCED: { type: "map"; values: Structure } = { type: "map", values: ATOMIC };
DEDUCED.values = DEDUCED;

/** The client-owned metadata: what managers own of every object. */
const METADATA: Structure = {
  type: "struct",
  fields: {
    labels: STRING_MAP,
    annotations: STRING_MAP,
    // Owner references are merged by uid and each one is atomic, as in Kubernetes' ObjectMeta.
    ownerReferences: { type: "list", keys: ["uid"], items: ATOMIC },
    // A set of strings in Kubernetes; owned whole here (who last wrote the list owns it).
    finalizers: ATOMIC,
  },
};

/**
 * What managers own through the status subresource: the status (free-form, so deduced) and the client
 * metadata. kube-apiserver's status strategy names only `spec` among the fields a status write resets
 * (`GetResetFields` in apiextensions-apiserver's `status_strategy.go`), so the metadata a status write
 * sends is recorded in its managedFields entry although the write keeps the stored metadata.
 */
export const STATUS_STRUCTURE: Structure = {
  type: "struct",
  fields: { metadata: METADATA, status: DEDUCED },
};

const cache = new Map<KindName, Structure>();

/**
 * The part of an object that field managers own through writes to the object: the client-owned metadata and
 * the spec. Kubernetes leaves the server-owned metadata (name, uid, resourceVersion, …) out of managedFields
 * too, and the status, which is owned through the status subresource (STATUS_STRUCTURE).
 */
export function objectStructure(kind: KindName): Structure {
  let structure = cache.get(kind);
  if (structure === undefined) {
    structure = {
      type: "struct",
      fields: {
        metadata: METADATA,
        spec: fromSchema(SPECS[kind].schema),
      },
    };
    cache.set(kind, structure);
  }
  return structure;
}

function fromSchema(schema: z.core.$ZodType): Structure {
  const inner = unwrapField(schema).schema;
  const def = inner._zod.def as unknown as Def;
  if (def.type === "object" && def.shape !== undefined) {
    const shape = def.shape;
    const fields: Record<string, Structure> = {};
    for (const key of Object.keys(shape)) fields[key] = fromSchema(shape[key] as z.core.$ZodType);
    return { type: "struct", fields };
  }
  if (def.type === "record" && def.valueType !== undefined) {
    return { type: "map", values: ATOMIC };
  }
  if (def.type === "array" && def.element !== undefined) {
    const keys = listMapKeys(inner);
    return keys === undefined ? ATOMIC : { type: "list", keys, items: fromSchema(def.element) };
  }
  return ATOMIC;
}
