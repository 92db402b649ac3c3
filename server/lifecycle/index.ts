import type { ObjectStore } from "../storage";
import { startFinalizer } from "./finalizer";
import { startGarbageCollector } from "./garbage-collector";

export {
  PROPAGATION_POLICIES,
  type PropagationPolicy,
  type Termination,
  type TerminationOptions,
  terminate,
  terminationOf,
} from "./termination";

/**
 * The server-side object lifecycle that Kubernetes runs beside the API: garbage collection, finalizers.
 * Started again whenever the store resets: writes undone for lack of space leave the collector's index
 * wrong, and writes it had refused leave work undone that its start-up pass does. `onError`: a write of
 * that pass failed (refused for lack of space); the next reset tries again.
 */
export function startLifecycle(store: ObjectStore, onError: (error: unknown) => void): { stop(): void } {
  const start = () => [startGarbageCollector(store, onError), startFinalizer(store, onError)];
  let stops = start();
  const stopAll = () => {
    for (const stop of stops) stop();
  };
  const unsubscribe = store.subscribeResets(() => {
    stopAll();
    stops = start();
  });
  return {
    stop: () => {
      unsubscribe();
      stopAll();
    },
  };
}
