// Where a spec can hold secrets, as plain data: what the resource classes walk to mark secret inputs, so a
// program that only declares resources never loads the zod schema. `secretTree` in secrets.ts derives it from
// the schema; sdk/resources/secret-trees.json keeps it for each kind. Like status.ts, this imports nothing.

/** The places under one point of a spec where secrets can be; absent parts hold none. */
export interface SecretTree {
  /** The secret fields of the object at this point (an APIKey's `key`, an OCICredentials' `password`). */
  secrets?: readonly string[];
  /** The fields of the object at this point that can hold secrets further down, with their trees. */
  fields?: Readonly<Record<string, SecretTree>>;
  /** The tree of each element, when this point is an array, or of each value, when it is a map. */
  items?: SecretTree;
}
