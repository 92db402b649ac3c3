import { isDeepStrictEqual } from "node:util";
import { applyDefaults, type KindName, moveWriteOnlyPasswords, redactSecrets } from "../schema";

/**
 * Whether a stored object's spec is what a create sent: equal once defaults are applied on both sides and
 * secrets are replaced by the placeholders the server answers with (so an unreadable secret is not a
 * difference). Used to recognise, after a replayed POST got 409 AlreadyExists, that the object is ours.
 */
export function isSameSpec(kind: KindName, sent: unknown, stored: unknown): boolean {
  return isDeepStrictEqual(normalise(kind, sent), normalise(kind, stored));
}

function normalise(kind: KindName, spec: unknown): unknown {
  const normalised = redactSecrets(kind, applyDefaults(kind, moveWriteOnlyPasswords(kind, spec)));
  // Through JSON, as the server sees it: `undefined` members vanish.
  return JSON.parse(JSON.stringify(normalised ?? null));
}
