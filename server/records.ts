/** Small helpers for JSON values of unknown shape: the sdk's, which the admission code shares. */
export { isRecord, type JsonPath, replaceAt, valueAt, withoutUndefined } from "../sdk/shared/records";
