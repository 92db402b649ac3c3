import type { z } from "zod";
import type { KindName } from "./kinds";
import { specSchema } from "./specs";
import { unwrapField, walk } from "./walk";

/**
 * Returns a copy of `spec` with the defaults of API-SPEC sections 2 and 8 filled in: field defaults
 * (zod `.default()`/`.prefault()`) where a field is absent, then each type's conditional defaults (backend
 * mode, tag "latest"). Absent optional objects are not created, except where their field has a default.
 * Idempotent, and tolerant: parts that are malformed or unknown are copied as they are.
 */
export function applyDefaults<T>(kind: KindName, spec: T): T {
  return walk(specSchema(kind), spec, ({ value, fields, meta }) => {
    const filled: Record<string, unknown> = { ...value };
    for (const [key, schema] of Object.entries(fields)) {
      if (filled[key] !== undefined) continue;
      const { hasDefault, defaultValue } = unwrapField(schema);
      if (hasDefault) filled[key] = defaultValue;
    }
    return meta?.fill ? meta.fill(filled) : filled;
  }) as T;
}

/**
 * The default a kind's schema declares for the field at `path` (from the object root, as in violations:
 * "spec.shutdown.minimumDrainTime"). Messages and rule descriptions that mention a default read it here, when
 * they are built, so a changed default changes them too. Throws for a path that is not a field with a
 * default: a programming error, which every message test would then show.
 */
export function fieldDefault(kind: KindName, path: string): unknown {
  const [root, ...names] = path.split(".");
  let schema: z.core.$ZodType | undefined = root === "spec" ? specSchema(kind) : undefined;
  for (const name of names) {
    const shape =
      schema && (unwrapField(schema).schema._zod.def as { shape?: Record<string, z.core.$ZodType> });
    schema = shape?.shape?.[name];
  }
  const field = schema === undefined || names.length === 0 ? undefined : unwrapField(schema);
  if (!field?.hasDefault) throw new TypeError(`${kind} ${path} is not a field with a default`);
  return field.defaultValue;
}
