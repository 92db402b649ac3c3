// A Service's git URL at admission: what no server could fetch (a `file://` URL naming a host) is a 422
// on the field. What this server may fetch (`--git-allow`) is judged by its controller, in the Accepted
// condition, as it depends on the server's flags and on the file system.

import { malformedUrl, URL_FIELD } from "../../builder/git/url";
import type { StatusCause } from "../../sdk/errors";
import type { KindName } from "../../sdk/schema";

function gitUrlOf(spec: unknown): unknown {
  const source = (spec as { source?: { git?: { url?: unknown } } } | undefined)?.source;
  return source?.git?.url;
}

/**
 * Judged when the URL is new (a create, or an update that changes it): an object stored before this
 * rule, or the rule's first version, can still be updated in its other fields and deleted.
 */
export function gitUrlCauses(kind: KindName, spec: unknown, existingSpec?: unknown): StatusCause[] {
  if (kind !== "Service") return [];
  const url = gitUrlOf(spec);
  if (typeof url !== "string" || url === gitUrlOf(existingSpec)) return [];
  const problem = malformedUrl(url);
  return problem === undefined
    ? []
    : [{ reason: "FieldValueInvalid", field: URL_FIELD, message: `${URL_FIELD}: "${url}" ${problem}` }];
}
