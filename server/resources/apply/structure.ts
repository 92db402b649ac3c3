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

const cache = new Map<KindName, Structure>();

/**
 * The part of an object that field managers own: the client-owned metadata and the spec. Kubernetes leaves
 * the server-owned metadata (name, uid, resourceVersion, …) and the status out of managedFields too.
 */
export function objectStructure(kind: KindName): Structure {
  let structure = cache.get(kind);
  if (structure === undefined) {
    structure = {
      type: "struct",
      fields: {
        metadata: {
          type: "struct",
          fields: {
            labels: STRING_MAP,
            annotations: STRING_MAP,
            // Owner references are merged by uid and each one is atomic, as in Kubernetes' ObjectMeta.
            ownerReferences: { type: "list", keys: ["uid"], items: ATOMIC },
            // A set of strings in Kubernetes; owned whole here (who last wrote the list owns it).
            finalizers: ATOMIC,
          },
        },
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
