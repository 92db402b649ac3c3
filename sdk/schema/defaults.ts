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
