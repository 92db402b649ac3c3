import type { BackendName } from "./backends";

/**
 * Where the local server and kube-apiserver must answer differently, each with the reason: the suite reads
 * these values, never a backend's name. Anything not listed here is expected to be the same on both
 * (kube/README.md lists these too).
 */
export interface Differences {
  /**
   * A list at an exact resourceVersion older than the current one, with changes since: kube-apiserver
   * reads it from etcd until etcd compacts it (every 5 min); the local server keeps no snapshots and
   * answers 410 Expired at once.
   */
  exactListOfOlderVersion: "served" | "expired";
}

export const DIFFERENCES: Record<BackendName, Differences> = {
  kube: {
    exactListOfOlderVersion: "served",
  },
  local: {
    exactListOfOlderVersion: "expired",
  },
};
