// The embedded controller's Events client on the local server: the same writes as over HTTP (routes/events.ts
// for events.k8s.io/v1), made on the store directly, so that recording a mint's Events costs the server no
// request of its own (the controller's other writes go over loopback HTTP, as any client's).
import type { EventClient, EventV1 } from "../../sdk/client/events";
import { fromEventsV1, toEventsV1 } from "./convert";
import type { EventStore, StoredEvent } from "./store";

export function inProcessEvents(store: EventStore): EventClient {
  return {
    async create(event) {
      const created = store.create(fromEventsV1(event) as never);
      if (created === undefined) throw new Error(`events "${event.metadata.name}" already exists`);
      return toEventsV1(created) as EventV1;
    },
    async patch(namespace, name, patch) {
      const before = store.get(namespace, name);
      if (before === undefined) throw new Error(`events "${name}" not found`);
      // The recorder patches `series` only: in the stored shape too.
      const replaced = store.replace({
        ...before,
        ...(patch.series !== undefined && { series: patch.series }),
      } as StoredEvent);
      return toEventsV1(replaced ?? before) as EventV1;
    },
  };
}
