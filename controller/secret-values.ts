// The secret values the controller acts on (registry credentials, API keys it copies into revisions). Both
// servers answer with placeholders; each object names a Secret holding its values (`SECRET_ANNOTATION`),
// which only the controller's identity may read. A name stands for one set of values (a change of values
// gets a new name), so the values are cached by name.

import type { ApiObject } from "../sdk/client/types";
import { joinSecrets, type SecretValues, secretNameOf } from "../sdk/schema";

/** How many Secrets' values are kept; past it, the oldest read is read again when next needed. */
const CAPACITY = 4096;

export class SecretValuesCache {
  private readonly byName = new Map<string, SecretValues>();

  constructor(private readonly read: (name: string) => Promise<SecretValues>) {}

  /** `object` with the values of the Secret it names in place of the placeholders; as it is if it names none. */
  async joined(object: ApiObject): Promise<ApiObject> {
    const name = secretNameOf(object);
    if (name === undefined) return object;
    let values = this.byName.get(name);
    if (values === undefined) {
      values = await this.read(name);
      if (this.byName.size >= CAPACITY) this.byName.delete(this.byName.keys().next().value as string);
      this.byName.set(name, values);
    }
    return { ...object, spec: joinSecrets(object.kind, object.spec, values) };
  }
}
