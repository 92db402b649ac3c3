import { isDeepStrictEqual } from "node:util";
import {
  isPlaceholder,
  KIND_NAMES,
  KINDS,
  type KindName,
  redactSecrets,
  secretPaths,
} from "../../sdk/schema";
import { isRecord } from "../../sdk/shared/records";
import { replaceAt, valueAt } from "../../server/records";
import type { KubeClient } from "../client";

/**
 * Secret values of the three kinds, kept in Kubernetes Secrets instead of the objects. A CRD stores and
 * returns what it is given, so the mutating webhook takes each secret value out of the object (which keeps
 * the placeholder every answer shows) and into a Secret the object names in an annotation; Secrets are
 * encrypted at rest (kube/env.ts), the objects need not be.
 *
 * Each change of an object's secret values mints a new immutable Secret rather than updating one in place:
 * a write can still fail after admission (a resourceVersion conflict, a later webhook, etcd), and an
 * updated Secret would then hold values the object never accepted. A minted Secret becomes live only when
 * the object that names it is stored, in the same write. The sweep gives each live Secret an owner
 * reference to its object (so a cluster's garbage collector deletes it with the object) and deletes, by
 * uid, the Secrets no object names once they are older than a grace that covers a write in flight: the
 * previous values after a change, a write that failed, an object deleted.
 */

export const SECRETS_NAMESPACE = "exampledev-system";
/** On an object: the name of the Secret holding its secret values. Set by the webhook only. */
export const SECRET_ANNOTATION = "secrets.example.dev/name";
const MANAGED_BY = { "app.kubernetes.io/managed-by": "exampledev-admission" };
const SECRET_TYPE = "example.dev/secret-values";

/** Secret values by key: the field's path from the object root, dotted (`spec.source.oci.credentials.passwordData`). */
export type SecretValues = Record<string, string>;

const keyOf = (path: readonly (string | number)[]) => ["spec", ...path].join(".");

export interface SplitSpec {
  /** The spec as stored: each secret value replaced by its placeholder. */
  spec: Record<string, unknown>;
  /** The values the object holds now: new ones, and the previous ones where the spec sent a placeholder back. */
  values: SecretValues;
}

/**
 * Takes the secret values out of an admitted spec (write-only passwords already moved to passwordData).
 * A placeholder sent back keeps the previous value at that path, as on the local server.
 */
export function splitSecrets(
  kind: KindName,
  spec: Record<string, unknown>,
  previous: SecretValues,
): SplitSpec {
  const values: SecretValues = {};
  for (const path of secretPaths(kind, spec)) {
    const value = valueAt(spec, path);
    const key = keyOf(path);
    if (!isPlaceholder(value)) values[key] = String(value);
    else if (previous[key] !== undefined) values[key] = previous[key];
  }
  return { spec: redactSecrets(kind, spec), values };
}

/** The spec with its secret values back in place of the placeholders: what a controller runs with. */
export function joinSecrets(
  kind: KindName,
  spec: Record<string, unknown>,
  values: SecretValues,
): Record<string, unknown> {
  const joined = structuredClone(spec);
  for (const path of secretPaths(kind, joined)) {
    const value = values[keyOf(path)];
    if (value !== undefined) replaceAt(joined, path, value);
  }
  return joined;
}

export function sameValues(a: SecretValues, b: SecretValues): boolean {
  return isDeepStrictEqual(a, b);
}

interface SecretObject {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    ownerReferences?: { uid: string }[];
  };
  data?: Record<string, string>;
}

const secretsPath = `/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets`;

export interface SweepOptions {
  /** How long a Secret no object names is kept: longer than any write takes from admission to etcd. */
  graceMs: number;
}

export interface SweepResult {
  owned: number;
  deleted: number;
}

/** The Secrets side of the webhook, as the admission service account. */
export class SecretKeeper {
  constructor(private readonly client: KubeClient) {}

  /** A new immutable Secret holding `values`; its name. */
  async mint(kind: KindName, prefix: string, values: SecretValues): Promise<string> {
    const secret = await this.client.ok<SecretObject>("POST", secretsPath, {
      apiVersion: "v1",
      kind: "Secret",
      // kube-apiserver cuts the prefix to leave room for the random suffix.
      metadata: { generateName: `${KINDS[kind].plural}.${prefix}-`, labels: MANAGED_BY },
      type: SECRET_TYPE,
      immutable: true,
      stringData: values,
    });
    return secret.metadata.name;
  }

  /** The values of the Secret an object names; none when it names none. Throws when that Secret is gone. */
  async valuesOf(object: Record<string, unknown> | undefined): Promise<SecretValues> {
    const name = secretNameOf(object);
    if (name === undefined) return {};
    const secret = await this.client.ok<SecretObject>("GET", `${secretsPath}/${name}`);
    return Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64").toString()]),
    );
  }

  /**
   * Owner references for the Secrets objects name, deletion (by uid) of the others past the grace. The
   * objects are listed before the Secrets, so a Secret minted after that list is young and kept.
   */
  async sweep({ graceMs }: SweepOptions, now = Date.now()): Promise<SweepResult> {
    const owners = new Map<string, { apiVersion: string; kind: string; name: string; uid: string }>();
    for (const kind of KIND_NAMES) {
      const { apiVersion, plural } = KINDS[kind];
      const list = await this.client.ok<{ items: Record<string, unknown>[] }>(
        "GET",
        `/apis/${apiVersion}/${plural}`,
      );
      for (const item of list.items) {
        const name = secretNameOf(item);
        const metadata = item.metadata as { name: string; uid: string };
        if (name !== undefined)
          owners.set(name, { apiVersion, kind, name: metadata.name, uid: metadata.uid });
      }
    }
    const selector = encodeURIComponent(
      Object.entries(MANAGED_BY)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
    );
    const secrets = await this.client.ok<{ items: SecretObject[] }>(
      "GET",
      `${secretsPath}?labelSelector=${selector}`,
    );
    const result: SweepResult = { owned: 0, deleted: 0 };
    for (const { metadata } of secrets.items) {
      const owner = owners.get(metadata.name);
      if (owner !== undefined) {
        if (metadata.ownerReferences?.some(({ uid }) => uid === owner.uid)) continue;
        await this.client.ok(
          "PATCH",
          `${secretsPath}/${metadata.name}`,
          { metadata: { ownerReferences: [owner], resourceVersion: metadata.resourceVersion } },
          "application/merge-patch+json",
        );
        result.owned++;
      } else if (now - Date.parse(metadata.creationTimestamp) > graceMs) {
        const { status } = await this.client.call("DELETE", `${secretsPath}/${metadata.name}`, {
          apiVersion: "v1",
          kind: "DeleteOptions",
          preconditions: { uid: metadata.uid, resourceVersion: metadata.resourceVersion },
        });
        // 404: gone already; 409: changed since the list (the next sweep looks again).
        if (status < 300) result.deleted++;
      }
    }
    return result;
  }
}

export function secretNameOf(object: Record<string, unknown> | undefined): string | undefined {
  const metadata = object?.metadata;
  if (!isRecord(metadata) || !isRecord(metadata.annotations)) return undefined;
  const name = metadata.annotations[SECRET_ANNOTATION];
  return typeof name === "string" ? name : undefined;
}
