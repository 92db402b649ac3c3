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

/** The server-side object lifecycle that Kubernetes runs beside the API: garbage collection, finalizers. */
export function startLifecycle(store: ObjectStore): { stop(): void } {
  const stops = [startGarbageCollector(store), startFinalizer(store)];
  return {
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}
