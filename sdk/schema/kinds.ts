export type KindName = "Proxy" | "Service" | "ServiceRevision";

export interface KindInfo {
  kind: KindName;
  group: string;
  version: string;
  apiVersion: string;
  plural: string;
  listKind: string;
}

function kindInfo(kind: KindName, group: string, version: string, plural: string): KindInfo {
  return { kind, group, version, apiVersion: `${group}/${version}`, plural, listKind: `${kind}List` };
}

export const KINDS: Readonly<Record<KindName, KindInfo>> = Object.freeze({
  Proxy: kindInfo("Proxy", "core.example.dev", "v1alpha2", "proxies"),
  Service: kindInfo("Service", "compute.example.dev", "v1alpha1", "services"),
  ServiceRevision: kindInfo("ServiceRevision", "compute.example.dev", "v1alpha1", "servicerevisions"),
});

export const KIND_NAMES: readonly KindName[] = Object.keys(KINDS) as KindName[];
