// Events only name the Service to sync: its own, or the owner of a revision.

import type { ApiObject } from "../sdk/client/types";
import { controllingService, SERVICE_LABEL } from "./revision";

/** The Service a change of `object` concerns; undefined for objects the controller does not act on. */
export function serviceKeyOf(object: ApiObject): string | undefined {
  const { metadata } = object;
  switch (object.kind) {
    case "Service":
      return metadata.name;
    case "ServiceRevision":
      return controllingService(object)?.name ?? metadata.labels?.[SERVICE_LABEL];
    default:
      return undefined;
  }
}
