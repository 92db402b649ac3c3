// Services and stores for the controller tests: specs as users write them, and a recorder of the writes
// a sync makes ("seed a store, run one sync, compare actions").

import mergePatch from "json-merge-patch";
import type { Cluster, KindCache } from "../../controller";
import type { InformerHandlers } from "../../controller/informer";
import type { ApiObject } from "../../sdk/client/types";
import { applyDefaults, type KindName, type ServiceSpecInput } from "../../sdk/schema";
import { type ObjectStore, openStore } from "../../server/storage";

export const DIGEST_A = `sha256:${"a".repeat(64)}`;
export const DIGEST_B = `sha256:${"b".repeat(64)}`;
export const REPO = "registry.example.dev/team/app";

export function ociService(
  overrides: Partial<ServiceSpecInput> & { oci?: NonNullable<ServiceSpecInput["source"]["oci"]> } = {},
): ServiceSpecInput {
  const { oci, ...rest } = overrides;
  return {
    source: { oci: oci ?? { repo: REPO, digest: DIGEST_A } },
    template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
    ...rest,
  };
}

export function gitService(): ServiceSpecInput {
  return {
    source: {
      git: {
        url: "https://git.example.dev/team/app.git",
        build: { output: { repo: REPO } },
        triggers: {},
      },
    },
    template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
  };
}

/** The store as the API leaves it after admission: defaults applied. */
export function createService(store: ObjectStore, name: string, spec: ServiceSpecInput): ApiObject {
  return store.create("Service", {
    apiVersion: "compute.example.dev/v1alpha1",
    kind: "Service",
    metadata: { name },
    spec: applyDefaults("Service", spec) as Record<string, unknown>,
  });
}

export function updateService(
  store: ObjectStore,
  name: string,
  change: (object: ApiObject) => ApiObject,
): ApiObject {
  const current = store.get("Service", name);
  if (!current) throw new Error(`Service ${name} is not stored`);
  const changed = change(current);
  return store.update("Service", { ...changed, spec: applyDefaults("Service", changed.spec) });
}

/** A write of the Service's status alone, as the `/status` subresource stores it. */
export function writeStatus(store: ObjectStore, name: string, status: Record<string, unknown>): ApiObject {
  const current = store.get("Service", name);
  if (!current) throw new Error(`Service ${name} is not stored`);
  return store.replaceStatus("Service", { ...current, status });
}

export function withSpec(spec: ServiceSpecInput) {
  return (object: ApiObject): ApiObject => ({ ...object, spec: spec as Record<string, unknown> });
}

/** An in-memory store that records every write as `<type> <Kind>/<name>`. */
export function recordingStore(): { store: ObjectStore; actions: string[]; take(): string[] } {
  const store = openStore("memory");
  const actions: string[] = [];
  store.subscribe((event) => actions.push(`${event.type} ${event.kind}/${event.object.metadata.name}`));
  return { store, actions, take: () => actions.splice(0) };
}

export function status(store: ObjectStore, name: string) {
  return store.get("Service", name)?.status as StatusView | undefined;
}

export function condition(store: ObjectStore, service: string, type: string) {
  return status(store, service)?.conditions.find((entry) => entry.type === type);
}

export function revisionNames(store: ObjectStore): string[] {
  return store.list("ServiceRevision").map((revision) => revision.metadata.name);
}

export interface StatusView {
  observedGeneration: number;
  latestRevision?: string;
  liveRevision?: string;
  resolvedBundle?: { tag: string; digest: string; resolvedAt: string };
  conditions: {
    type: string;
    status: string;
    reason: string;
    message: string;
    lastTransitionTime: string;
    observedGeneration: number;
  }[];
}

/**
 * The controller's view of a store, in place of informers and a client (a fake clientset, as
 * sample-controller's tests have): reads and writes go to the store, whose events reach the handlers at
 * once; `start` hands every stored object to them as an informer's first list does.
 */
export function storeCluster(store: ObjectStore): Cluster {
  const patched = (kind: KindName, name: string, patch: unknown) =>
    mergePatch.apply(structuredClone(store.get(kind, name)), patch) as unknown as ApiObject;
  const kinds: { kind: KindName; handlers: InformerHandlers<ApiObject>[] }[] = [];
  const kindCache = (kind: KindName): KindCache => {
    const handlers: InformerHandlers<ApiObject>[] = [];
    kinds.push({ kind, handlers });
    store.subscribe((event) => {
      if (event.kind !== kind) return;
      for (const handler of handlers) {
        if (event.type === "ADDED") handler.add?.(event.object);
        else if (event.type === "MODIFIED") handler.update?.(event.object, event.object);
        else handler.delete?.(event.object);
      }
    });
    return {
      get: (name) => store.get(kind, name),
      list: () => store.list(kind),
      addHandlers: (added) => void handlers.push(added),
      // The store keeps secret values in place.
      withSecrets: async (object) => object,
      create: async (object) => store.create(kind, object),
      replace: async (object) => store.update(kind, object),
      replaceStatus: async (object) => store.replaceStatus(kind, object),
      // The store checks the patched object's resourceVersion, as the API checks one a patch carries.
      patch: async (name, patch) => store.update(kind, patched(kind, name, patch)),
      patchStatus: async (name, patch) => store.replaceStatus(kind, patched(kind, name, patch)),
      async delete(name, uid) {
        store.delete(kind, name, uid === undefined ? undefined : { uid });
      },
    };
  };
  const services = kindCache("Service");
  const revisions = kindCache("ServiceRevision");
  const proxies = kindCache("Proxy");
  return {
    services,
    revisions,
    proxies,
    async start() {
      for (const { kind, handlers } of kinds) {
        for (const object of store.list(kind)) for (const handler of handlers) handler.add?.(object);
      }
    },
    async stop() {},
    async reached() {},
  };
}
