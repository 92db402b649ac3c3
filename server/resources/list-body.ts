import type { ApiObject } from "../../sdk/client/types";
import type { ObjectList } from "./operations";
import { redactObject } from "./redaction";

/**
 * The JSON of each stored object as clients see it (redacted), made once per stored object. A stored
 * object is never changed (a write stores a new one, and this entry goes with the old one), so the text
 * stays true for as long as the object is stored: a list of 10k that changed little since the last one
 * serializes little.
 */
const SERIALIZED = new WeakMap<Readonly<ApiObject>, string>();

export function serializedObject(object: Readonly<ApiObject>): string {
  let text = SERIALIZED.get(object);
  if (text === undefined) {
    text = JSON.stringify(redactObject(object));
    SERIALIZED.set(object, text);
  }
  return text;
}

/** The list's JSON, as `JSON.stringify` of the redacted list would write it, from each item's cached text. */
export function listBody(list: ObjectList): string {
  const { items, ...envelope } = list;
  const head = JSON.stringify(envelope);
  return `${head.slice(0, -1)},"items":[${items.map(serializedObject).join(",")}]}`;
}
