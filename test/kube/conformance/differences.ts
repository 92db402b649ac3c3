import type { BackendName } from "./backends";

/**
 * Where the local server and kube-apiserver must answer differently, each with the reason: the suite reads
 * these values, never a backend's name. Anything not listed here is expected to be the same on both
 * (kube/README.md lists these too).
 */
export interface Differences {
  /**
   * Whether a Proxy deleted without `gracePeriodSeconds=0` is kept, marked with a deletionTimestamp and the
   * grace it gets as `deletionGracePeriodSeconds` (as kube-apiserver marks a pod's graceful deletion), for
   * that grace: the local server's controller drains a Proxy before it goes (the design's shutdown); the CRD
   * alone has no such step, so kube-apiserver removes it at once (a finalizer held by the controller, once
   * it runs against a cluster, will bring the same step there; a finalizer's mark records a grace of 0).
   * Unlike a pod's, the local mark's deletionTimestamp is when it was marked, not when the grace ends.
   */
  proxyDeletionGrace: boolean;
  /**
   * A list at an exact resourceVersion older than the current one, with changes since: kube-apiserver
   * reads it from etcd until etcd compacts it (every 5 min); the local server keeps no snapshots and
   * answers 410 Expired at once.
   */
  exactListOfOlderVersion: "served" | "expired";
}

export const DIFFERENCES: Record<BackendName, Differences> = {
  kube: {
    proxyDeletionGrace: false,
    exactListOfOlderVersion: "served",
  },
  local: {
    proxyDeletionGrace: true,
    exactListOfOlderVersion: "expired",
  },
};
