import type { ObjectStore } from "../storage";
import { graceSeconds, startFinalizer } from "./finalizer";
import { startGarbageCollector } from "./garbage-collector";

export { FINALIZED_KINDS, graceSeconds } from "./finalizer";
export {
  PROPAGATION_POLICIES,
  type PropagationPolicy,
  type Termination,
  type TerminationOptions,
  terminate,
  terminationOf,
} from "./termination";

export interface LifecycleOptions {
  store: ObjectStore;
  /** How long a terminating Proxy stays visible before it disappears. */
  proxyDeletionGraceMs: number;
}

/** The server-side object lifecycle that Kubernetes runs beside the API: garbage collection, finalizers. */
export function startLifecycle({ store, proxyDeletionGraceMs }: LifecycleOptions): { stop(): void } {
  const stops = [
    startGarbageCollector(store, graceSeconds(proxyDeletionGraceMs)),
    startFinalizer(store, proxyDeletionGraceMs),
  ];
  return {
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}
