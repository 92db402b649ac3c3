import type { ApiObject } from "../../sdk/client/types";
import { KIND_NAMES, KINDS, type KindName, redactSecrets } from "../../sdk/schema";
import { isRecord } from "../records";

/** The object as clients may see it: every secret in the spec replaced by its placeholder. */
export function redactObject(object: ApiObject): ApiObject {
  return { ...object, spec: redactSecrets(object.kind, object.spec) };
}

const LIST_KINDS: ReadonlySet<string> = new Set(KIND_NAMES.map((kind) => KINDS[kind].listKind));

/** Redacts any response body that is an object of this API or a list of them; others pass unchanged. */
export function redactPayload(payload: unknown): unknown {
  if (!isRecord(payload)) return payload;
  if (isKindName(payload.kind)) return redactObject(payload as unknown as ApiObject);
  if (typeof payload.kind === "string" && LIST_KINDS.has(payload.kind) && Array.isArray(payload.items)) {
    return { ...payload, items: payload.items.map((item: ApiObject) => redactObject(item)) };
  }
  return payload;
}

function isKindName(value: unknown): value is KindName {
  return typeof value === "string" && Object.hasOwn(KINDS, value);
}
