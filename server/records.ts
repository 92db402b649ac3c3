/** Small helpers for JSON values of unknown shape. */

/** The sdk's JSON helpers, beside the server's own. */
export { isRecord, type JsonPath, replaceAt, valueAt } from "../sdk/shared/records";

/** A copy without the keys whose value is undefined (so stored JSON and equality checks agree). */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
