import { createHash } from "node:crypto";
import type { ObjectInputs } from "./state";

/**
 * A digest of what a write sends (name, labels, annotations, spec, adopt), the same whatever the order of keys:
 * inputs travel through the engine between `check` and `diff`.
 */
export function fingerprint(inputs: ObjectInputs): string {
  const { metadata, spec, adopt } = inputs;
  return createHash("sha256")
    .update(JSON.stringify(canonical({ metadata, spec, adopt: adopt ?? false })))
    .digest("hex");
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}
