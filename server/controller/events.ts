// Events only name the Service to sync: its own, or the owner of a revision.
import type { WatchEvent } from "../storage";
import { controllingService, SERVICE_LABEL } from "./revision";

/** The Service an event concerns; undefined for events the controller does not act on (Proxies). */
export function serviceKeyOf(event: WatchEvent): string | undefined {
  const { metadata } = event.object;
  switch (event.kind) {
    case "Service":
      return metadata.name;
    case "ServiceRevision":
      return controllingService(event.object)?.name ?? metadata.labels?.[SERVICE_LABEL];
    default:
      return undefined;
  }
}
