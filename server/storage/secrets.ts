import type { ApiObject } from "../../sdk/client/types";
import { type KindName, SECRET_FIELDS, secretPaths } from "../../sdk/schema";
import { valueAt } from "../records";

/**
 * Whether replacing `before` by `after` (or deleting it, without `after`) takes a secret value out of the
 * store: a value at one of `before`'s secret paths that `after` no longer holds at any of its own. The
 * durable journal then scrubs the old copies off the disk. When the spec cannot be walked, assume it does.
 */
export function dropsSecrets(kind: KindName, before: ApiObject, after?: ApiObject): boolean {
  const old = secretValues(kind, before);
  if (old === undefined) return true;
  if (old.length === 0) return false;
  if (after === undefined) return true;
  const kept = secretValues(kind, after);
  if (kept === undefined) return true;
  const keptSet = new Set(kept);
  return old.some((value) => !keptSet.has(value));
}

const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set(SECRET_FIELDS.map(({ field }) => field));

/** The secret values of a spec as JSON texts; undefined when the spec could not be read. */
function secretValues(kind: KindName, object: ApiObject): string[] | undefined {
  // Walking the schema costs far more than looking for a field name: most specs hold no secret at all.
  if (!hasFieldNamed(object.spec, SECRET_FIELD_NAMES)) return [];
  try {
    return secretPaths(kind, object.spec).map((path) => JSON.stringify(valueAt(object.spec, path)) ?? "");
  } catch {
    return undefined;
  }
}

/** Whether any object inside `value` has a field of one of these names (without recursion). */
function hasFieldNamed(value: unknown, names: ReadonlySet<string>): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) stack.push(...node);
    else {
      for (const [key, field] of Object.entries(node)) {
        if (names.has(key)) return true;
        stack.push(field);
      }
    }
  }
  return false;
}
