import { isRecord } from "../shared/records";

// The one definition is sdk/shared/records.ts; the schema's modules import it from here.
export { isRecord };

/** Pulumi's unknown-value sentinel: during preview, outputs not yet known reach the provider as this string. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** A value a rule can reason about: present and not the unknown sentinel. */
export function isKnown(value: unknown): boolean {
  return value !== undefined && value !== null && value !== UNKNOWN;
}

/** Whether the unknown sentinel appears anywhere in `value` (preview: a value that depends on another output). */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (isRecord(value)) return Object.values(value).some(containsUnknown);
  return false;
}
