// What the controller sees of the API and how it writes to it: per kind, reads from a cache kept by an
// informer, writes through the typed client (children by create and delete with a uid precondition, status
// through `/status`). Each write is assumed into the cache as the server answered it, so the next sync
// reads it even before the watch brings it back.
import {
  type Client,
  ConflictError,
  type MergePatch,
  NotFoundError,
  type ResourceClient,
} from "../sdk/client";
import type { EventClient } from "../sdk/client/events";
import type { ApiObject } from "../sdk/client/types";
import { Informer, type InformerHandlers, type InformerOptions, type Transform } from "./informer";
import { SecretValuesCache } from "./secret-values";

/** One kind as the controller uses it. */
export interface KindCache {
  get(name: string): ApiObject | undefined;
  list(): ApiObject[];
  addHandlers(handlers: InformerHandlers<ApiObject>): void;
  /**
   * The object with its secret values in place (see secret-values.ts): what a sync computes from. Throws
   * NotFound when the Secret it names is gone, i.e. the object changed since the cache saw it.
   */
  withSecrets(object: ApiObject): Promise<ApiObject>;
  create(object: ApiObject): Promise<ApiObject>;
  /** Spec and metadata; `metadata.resourceVersion` must be the stored one. */
  replace(object: ApiObject): Promise<ApiObject>;
  /** Status only (`/status`); `metadata.resourceVersion` must be the stored one. */
  replaceStatus(object: ApiObject): Promise<ApiObject>;
  /**
   * A JSON merge patch of the status (`/status`), for a cache that keeps only part of its objects: a PUT of
   * such an object would tell the server's field manager that the labels and annotations it lacks were
   * removed, and take them from their managers. A `metadata.resourceVersion` in it is a precondition.
   */
  patchStatus(name: string, patch: MergePatch): Promise<ApiObject>;
  /**
   * A JSON merge patch of the object; a `metadata.resourceVersion` in it is a precondition (409 Conflict
   * when the object changed), as kube-apiserver reads it.
   */
  patch(name: string, patch: MergePatch): Promise<ApiObject>;
  /** Deletes this incarnation (`uid`) of the name; an object already gone is no failure. */
  delete(name: string, uid: string | undefined): Promise<void>;
}

export interface Cluster {
  services: KindCache;
  revisions: KindCache;
  /**
   * Read and written only by the Proxy drain (drain.ts), when the controller runs it. Its cache keeps each
   * Proxy's name, uid, resourceVersion, generation, deletionTimestamp, finalizers and status, no spec.
   */
  proxies: KindCache;
  /** Where the controller records Kubernetes Events (recorder.ts); without it, none are recorded. */
  events?: EventClient;
  /**
   * Starts the caches of the kinds that have handlers (as client-go's informer factory starts only the
   * informers asked for, so a controller needs no permission on a kind it leaves alone); resolves once each
   * has its first list.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Resolves once the caches have seen the API's writes up to the versions given (the last write of each
   * kind), for a caller that knows them: the local server that runs the controller in its own process, whose
   * versions are counters.
   */
  reached(versions: LastWrites): Promise<void>;
}

/** The resourceVersion of the last write of each kind the controller watches, by its cache's name. */
export type LastWrites = Partial<Record<"services" | "revisions" | "proxies", string>>;

type AnyResourceClient = ResourceClient<ApiObject, ApiObject>;

/** The controller's writes are its own in managedFields, as kube-controller-manager's are. */
export const CONTROLLER_FIELD_MANAGER = "exampledev-controller";
const WRITES = { fieldManager: CONTROLLER_FIELD_MANAGER };

/** The cluster behind `client`: one informer per kind. */
export function clusterOf(client: Client, options: InformerOptions = {}): Cluster {
  const secrets = new SecretValuesCache((name) => client.secretValues(name));
  const kind = (resources: unknown, transform?: Transform<ApiObject>) => {
    const typed = resources as AnyResourceClient;
    const informer = new Informer<ApiObject>(typed, options, transform);
    return { informer, cache: cachedKind(informer, typed, secrets) };
  };
  const services = kind(client.services);
  const revisions = kind(client.serviceRevisions);
  const proxies = kind(client.proxies, metadataOnly);
  const all = [services, revisions, proxies].map(({ informer }) => informer);
  return {
    services: services.cache,
    revisions: revisions.cache,
    proxies: proxies.cache,
    events: client.events,
    async start() {
      const used = all.filter((informer) => informer.hasHandlers);
      for (const informer of used) informer.start();
      await Promise.all(used.map((informer) => informer.synced()));
    },
    async stop() {
      await Promise.all(all.map((informer) => informer.stop()));
    },
    async reached(versions) {
      const informers = { services, revisions, proxies };
      await Promise.all(
        Object.entries(versions).map(([name, version]) => {
          const { informer } = informers[name as keyof LastWrites];
          // An informer the controller never started (no handler: Proxies without the drain) sees nothing.
          if (version === undefined || !informer.hasHandlers) return undefined;
          return informer.reachedWhen(atOrAfter(version));
        }),
      );
    },
  };
}

function cachedKind(
  informer: Informer<ApiObject>,
  client: AnyResourceClient,
  secrets: SecretValuesCache,
): KindCache {
  const assumed = (object: ApiObject) => {
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
    patch: async (name, patch) => assumed(await client.patch(name, patch, { ...WRITES, type: "merge" })),
    patchStatus: async (name, patch) =>
      assumed(await client.patchStatus(name, patch, { ...WRITES, type: "merge" })),
    async delete(name, uid) {
      try {
        const terminating = await client.delete(name, uid === undefined ? {} : { preconditions: { uid } });
        if (terminating) assumed(terminating);
        else informer.assumeDeleted(name);
      } catch (error) {
        // Gone already, or the name holds another incarnation now: either way not ours to delete.
        if (!(error instanceof NotFoundError || error instanceof ConflictError)) throw error;
      }
    },
  };
}

/**
 * Whether a cache's version is `version` or later, by the local server's versions, which count its writes
 * (the one caller of `reached`; elsewhere versions are opaque and only compared for equality).
 */
const atOrAfter = (version: string) => (reached: string | undefined) =>
  reached !== undefined && Number(reached) >= Number(version);

/**
 * A Proxy as the drain reads it: the metadata it decides on, without the spec, status or managed fields a
 * cache of every Proxy would otherwise hold.
 */
function metadataOnly(object: ApiObject): ApiObject {
  const { name, uid, resourceVersion, generation, deletionTimestamp, finalizers } = object.metadata;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: {
      name,
      ...(uid !== undefined && { uid }),
      ...(resourceVersion !== undefined && { resourceVersion }),
      ...(generation !== undefined && { generation }),
      ...(deletionTimestamp !== undefined && { deletionTimestamp }),
      ...(finalizers !== undefined && { finalizers }),
    },
    spec: {},
    // The readiness conditions the drain writes, to write them only when they change.
    ...(object.status !== undefined && { status: object.status }),
  };
}
