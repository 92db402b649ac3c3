import type { RawClient } from "../sdk/client/raw";
import { NotFoundError, type Status } from "../sdk/errors";
import { failureStatus } from "../sdk/errors/reasons";
import {
  KIND_NAMES,
  KINDS,
  type KindName,
  SECRET_TYPE,
  SECRETS_NAMESPACE,
  type SecretValues,
  secretNameOf,
} from "../sdk/schema";

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
 * reference to its object, so the garbage collector (kube-controller-manager's, which kube/env.ts runs as
 * a cluster does) deletes it with the object, and deletes, by uid, the Secrets no object names once they
 * are older than a grace that covers a write in flight: the previous values after a change, a write that
 * failed, an object deleted before the sweep owned its Secret.
 */

const MANAGED_BY = { "app.kubernetes.io/managed-by": "exampledev-admission" };

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

/**
 * What minting may cost: a Secret holds at most 1 MiB (kube-apiserver's own limit of a Secret's data), and
 * Secrets are minted at most `perSecond` a second on average, `burst` at once (a token bucket): each mint is
 * a write to etcd that stays there until the sweep (a minute at least), so a flood of writes with secret
 * values, even authenticated ones, grows etcd at a bounded rate. Past it a review is refused with 429
 * (kube-apiserver gives its client the 429, which client-go and this project's client retry).
 */
export interface MintLimits {
  maxSecretBytes: number;
  perSecond: number;
  burst: number;
}

export const DEFAULT_MINT_LIMITS: MintLimits = { maxSecretBytes: 1024 * 1024, perSecond: 20, burst: 100 };

/** The Secrets side of the webhook, as the admission service account. */
export class SecretKeeper {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly client: RawClient,
    private readonly limits: MintLimits = DEFAULT_MINT_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = limits.burst;
    this.refilledAt = now();
  }

  /** Why minting a Secret of `values` now is refused (too large, too many minted lately), or undefined. */
  mintRefusal(values: SecretValues): Status | undefined {
    const bytes = Object.entries(values).reduce(
      (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value),
      0,
    );
    if (bytes > this.limits.maxSecretBytes)
      return failureStatus(
        "RequestEntityTooLarge",
        `the object's secret values take ${bytes} bytes; a Secret holds at most ${this.limits.maxSecretBytes}`,
      );
    const now = this.now();
    this.tokens = Math.min(
      this.limits.burst,
      this.tokens + ((now - this.refilledAt) / 1000) * this.limits.perSecond,
    );
    this.refilledAt = now;
    if (this.tokens < 1)
      return failureStatus(
        "TooManyRequests",
        `the exampledev admission webhook mints at most ${this.limits.perSecond} Secrets a second; retry shortly`,
        { retryAfterSeconds: 1 },
      );
    this.tokens -= 1;
    return undefined;
  }

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

  /**
   * Why `object` (a review's oldObject) is not the stored object as far as its Secret goes (another uid,
   * another Secret, none stored), or undefined when it is. Read from kube-apiserver as the webhook's identity.
   */
  async differsFromStored(kind: KindName, object: Record<string, unknown>): Promise<string | undefined> {
    const { apiVersion, plural } = KINDS[kind];
    const { name, uid } = (object.metadata ?? {}) as { name?: string; uid?: string };
    if (typeof name !== "string" || name === "") return `the ${kind} to update has no name`;
    const stored = await this.client
      .ok("GET", `/apis/${apiVersion}/${plural}/${encodeURIComponent(name)}`)
      .catch(unlessNotFound);
    if (stored === undefined) return `${kind} "${name}" is not stored: nothing to update`;
    const storedUid = (stored.metadata as { uid?: string } | undefined)?.uid;
    if (storedUid !== uid || secretNameOf(stored) !== secretNameOf(object))
      return `${kind} "${name}" changed since this update read it: the review's oldObject is not the stored object`;
    return undefined;
  }

  /** Whether the Secret an object names is there (true when it names none). */
  async kept(object: Record<string, unknown>): Promise<boolean> {
    const name = secretNameOf(object);
    if (name === undefined) return true;
    return (await this.client.ok("GET", `${secretsPath}/${name}`).catch(unlessNotFound)) !== undefined;
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

/** A read's answer for an object that is not there: undefined; any other failure is thrown on. */
function unlessNotFound(error: unknown): undefined {
  if (error instanceof NotFoundError) return undefined;
  throw error;
}
