/**
 * The finalizer the controller keeps on every Proxy it has seen: a deleted Proxy stays, marked with a
 * `deletionTimestamp`, while it drains, and goes once the controller takes this finalizer off (on the local
 * server and on kube-apiserver alike). Written by the controller, never by a client; a user who must skip
 * the drain removes it from a Proxy already marked, as with any finalizer.
 */
export const PROXY_DRAIN_FINALIZER = "core.example.dev/drain";
