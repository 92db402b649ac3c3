import type { z } from "zod";
import { typeMeta } from "./meta";
import { unwrapField } from "./walk";

/**
 * How each list of the API merges, in one table: a list whose element type is named here is a map-list
 * (Kubernetes `x-kubernetes-list-type: map`), whose items are identified by the key fields. Server-side
 * apply merges such a list item by item, two managers can own different items, and a manager owns
 * `k:{"name":"X"}` rather than the whole list. Every other list is atomic: it is set and owned whole.
 *
 * The rule behind the table: a list of objects with a required `name` is keyed by `name`; the names in
 * such a list are unique (the `unique-names` rule), as map keys must be. A unit test holds the schema to
 * the table both ways.
 */
export const LIST_MAP_KEYS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  EnvVar: ["name"],
  Binding: ["name"],
});

/** The key fields of a list field's items, or undefined for an atomic list (or a field that is not a list). */
export function listMapKeys(listSchema: z.core.$ZodType): readonly string[] | undefined {
  const list = unwrapField(listSchema).schema;
  const def = list._zod.def as unknown as { type: string; element?: z.core.$ZodType };
  if (def.type !== "array" || def.element === undefined) return undefined;
  const typeName = typeMeta.get(unwrapField(def.element).schema)?.typeName;
  return typeName === undefined ? undefined : LIST_MAP_KEYS[typeName];
}
