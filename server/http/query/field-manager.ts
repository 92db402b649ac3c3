import type { StatusCause } from "../../../sdk/errors";
import { apiError } from "../../../sdk/errors/server-errors";

/** Kubernetes caps a field manager's name at 128 bytes. */
const FIELD_MANAGER_MAX_LENGTH = 128;

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u;

/**
 * The manager of a write that names none and whose User-Agent gives none (no header, or nothing printable
 * before its first "/"). Kubernetes records an empty manager there, which `managedFields` then shows
 * without a name and conflicts quote as `""`; this server says "unknown", the word client-go puts in a
 * User-Agent for the parts it cannot tell (`rest.DefaultKubernetesUserAgent`).
 */
const UNKNOWN_MANAGER = "unknown";

/**
 * The manager a write is recorded under: the `fieldManager` query parameter, else what Kubernetes derives
 * from the User-Agent: the part before the first "/", printable characters only, cut at 128 bytes
 * (`kubectl/v1.32.4 (linux/amd64)` -> `kubectl`), else UNKNOWN_MANAGER. A `fieldManager` that is too
 * long or has unprintable characters is refused (422), as are apply patches without one.
 */
export function fieldManagerOf(
  fieldManager: string | undefined,
  userAgent: string | undefined,
  options: { apply: boolean; force?: boolean | undefined },
): string {
  const causes: StatusCause[] = [];
  if (options.apply && (fieldManager === undefined || fieldManager === "")) {
    causes.push({
      reason: "FieldValueRequired",
      field: "fieldManager",
      message:
        "fieldManager: Required value: is required for apply patch; name the manager of the fields you apply, e.g. ?fieldManager=my-tool",
    });
  }
  if (!options.apply && options.force !== undefined) {
    causes.push({
      reason: "FieldValueForbidden",
      field: "force",
      message: "force: Forbidden: may not be specified for non-apply patch",
    });
  }
  if (fieldManager !== undefined) {
    if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) {
      causes.push({
        reason: "FieldValueTooLong",
        field: "fieldManager",
        message: `fieldManager: Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
      });
    }
    Array.from(fieldManager).forEach((character, index) => {
      if (!PRINTABLE.test(character)) {
        const code = `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
        causes.push({
          reason: "FieldValueInvalid",
          field: "fieldManager",
          message: `fieldManager: Invalid value: invalid character ${code} (at position ${index})`,
        });
      }
    });
  }
  if (causes.length > 0) {
    throw apiError(
      "Invalid",
      `PatchOptions.meta.k8s.io "" is invalid: ${causes.map((cause) => cause.message).join(", ")}`,
      { group: "meta.k8s.io", kind: "PatchOptions", causes },
    );
  }
  return fieldManager || managerFromUserAgent(userAgent) || UNKNOWN_MANAGER;
}

/** `kubectl/v1.32.4 (linux/amd64) kubernetes/abc` -> `kubectl`, as Kubernetes' prefixFromUserAgent. */
function managerFromUserAgent(userAgent: string | undefined): string {
  let manager = "";
  for (const character of (userAgent ?? "").split("/")[0] ?? "") {
    if (!PRINTABLE.test(character)) continue;
    if (Buffer.byteLength(manager + character) > FIELD_MANAGER_MAX_LENGTH) break;
    manager += character;
  }
  return manager;
}
