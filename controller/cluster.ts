// What the controller sees of the API and how it writes to it: per kind, reads from a cache kept by an
// informer, writes through the typed client (children by create and delete with a uid precondition, status
// through `/status`). Each write is assumed into the cache as the server answered it, so the next sync
// reads it even before the watch brings it back.
import type { ApiError, Client, ResourceClient } from "../sdk/client";
import { Informer, type InformerHandlers, type InformerOptions } from "./informer";
import type { KubeObject } from "./objects";
import { SecretValuesCache } from "./secret-values";

/** One kind as the controller uses it. */
export interface KindCache {
  get(name: string): KubeObject | undefined;
  list(): KubeObject[];
  addHandlers(handlers: InformerHandlers<KubeObject>): void;
  /**
   * The object with its secret values in place (see secret-values.ts): what a sync computes from. Throws
   * NotFound when the Secret it names is gone, i.e. the object changed since the cache saw it.
   */
  withSecrets(object: KubeObject): Promise<KubeObject>;
  create(object: KubeObject): Promise<KubeObject>;
  /** Spec and metadata; `metadata.resourceVersion` must be the stored one. */
  replace(object: KubeObject): Promise<KubeObject>;
  /** Status only (`/status`); `metadata.resourceVersion` must be the stored one. */
  replaceStatus(object: KubeObject): Promise<KubeObject>;
  /** Deletes this incarnation (`uid`) of the name; an object already gone is no failure. */
  delete(name: string, uid: string | undefined): Promise<void>;
}

export interface Cluster {
  services: KindCache;
  revisions: KindCache;
  /** Starts the caches; resolves once each has its first list. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Resolves once the caches have seen the API's writes up to the versions given (the last write of each
   * kind), for a caller that knows them: the server that runs the controller in its own process.
   */
  reached(versions: { services?: string; revisions?: string }): Promise<void>;
}

type AnyResourceClient = ResourceClient<KubeObject, KubeObject>;

/** The controller's writes are its own in managedFields, as kube-controller-manager's are. */
export const CONTROLLER_FIELD_MANAGER = "exampledev-controller";
const WRITES = { fieldManager: CONTROLLER_FIELD_MANAGER };

/** The cluster behind `client`: one informer per kind. */
export function clusterOf(client: Client, options: InformerOptions = {}): Cluster {
  const services = new Informer<KubeObject>(client.services as unknown as AnyResourceClient, options);
  const revisions = new Informer<KubeObject>(
    client.serviceRevisions as unknown as AnyResourceClient,
    options,
  );
  const secrets = new SecretValuesCache((name) => client.secretValues(name));
  return {
    services: cachedKind(services, client.services as unknown as AnyResourceClient, secrets),
    revisions: cachedKind(revisions, client.serviceRevisions as unknown as AnyResourceClient, secrets),
    async start() {
      services.start();
      revisions.start();
      await Promise.all([services.synced(), revisions.synced()]);
    },
    async stop() {
      await Promise.all([services.stop(), revisions.stop()]);
    },
    async reached(versions) {
      await Promise.all([
        versions.services === undefined ? undefined : services.reached(versions.services),
        versions.revisions === undefined ? undefined : revisions.reached(versions.revisions),
      ]);
    },
  };
}

function cachedKind(
  informer: Informer<KubeObject>,
  client: AnyResourceClient,
  secrets: SecretValuesCache,
): KindCache {
  const assumed = (object: KubeObject) => {
    informer.assume(object);
    return object;
  };
  return {
    get: (name) => informer.get(name),
    list: () => informer.list(),
    addHandlers: (handlers) => informer.addHandlers(handlers),
    withSecrets: (object) => secrets.joined(object),
    create: async (object) => assumed(await client.create(object, WRITES)),
    replace: async (object) => assumed(await client.replace(object.metadata.name, object, WRITES)),
    replaceStatus: async (object) =>
      assumed(await client.replaceStatus(object.metadata.name, object, WRITES)),
    async delete(name, uid) {
      try {
        const terminating = await client.delete(name, uid === undefined ? {} : { preconditions: { uid } });
        if (terminating) assumed(terminating);
        else informer.assumeDeleted(name);
      } catch (error) {
        // Gone already, or the name holds another incarnation now: either way not ours to delete.
        if (!hasReason(error, "NotFound") && !hasReason(error, "Conflict")) throw error;
      }
    },
  };
}

/** Whether an API error has this reason (`AlreadyExists`, `Conflict`, ...), whichever class carries it. */
export function hasReason(error: unknown, reason: string): error is ApiError {
  return (error as Partial<ApiError> | undefined)?.reason === reason;
}
