/** A JSON object: not null, not an array. The one definition; `sdk/schema`, `sdk/errors`, the server and the policy pack use it. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
