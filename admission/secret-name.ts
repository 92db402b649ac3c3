import { randomBytes } from "node:crypto";
import type { ApiObject } from "../sdk/client/types";
import {
  KINDS,
  type KindName,
  SECRET_ANNOTATION,
  sameValues,
  secretNameOf,
  secretValuesOf,
  withoutSecretName,
} from "../sdk/schema";

/**
 * The Secret an admitted object names (`SECRET_ANNOTATION`), as kube-apiserver's admission webhook names
 * it: none without secret values, the stored one while the values stay the same, a new name when they
 * change, and on a dry run none for values that would need a new one. A client's value is overwritten, so
 * no object can name another's values. The local server keeps the values in its store; the name is what
 * its controller asks the Secrets endpoint for (server/routes/secrets.ts).
 */
export function withSecretName(
  kind: KindName,
  object: ApiObject,
  existing: ApiObject | undefined,
  dryRun: boolean,
): ApiObject {
  const values = secretValuesOf(kind, object.spec);
  let name = existing && secretNameOf(existing);
  if (Object.keys(values).length === 0) name = undefined;
  else if (name === undefined || !sameValues(values, secretValuesOf(kind, existing?.spec ?? {}))) {
    name = dryRun
      ? undefined
      : `${KINDS[kind].plural}.${object.metadata.name}-${randomBytes(4).toString("hex")}`;
  }
  const annotations = withoutSecretName(object.metadata.annotations);
  const named = name === undefined ? annotations : { ...annotations, [SECRET_ANNOTATION]: name };
  const { annotations: _previous, ...metadata } = object.metadata;
  return { ...object, metadata: { ...metadata, ...(named !== undefined && { annotations: named }) } };
}

/** The kind and object name a Secret name of `withSecretName` stands for, if it is one. */
export function secretOwnerOf(secretName: string): { kind: KindName; name: string } | undefined {
  const match = /^([a-z]+)\.(.+)-[0-9a-f]{8}$/.exec(secretName);
  if (match === null) return undefined;
  const [, plural, name] = match as unknown as [string, string, string];
  const kind = (Object.keys(KINDS) as KindName[]).find((candidate) => KINDS[candidate].plural === plural);
  return kind === undefined ? undefined : { kind, name };
}
