import { applyPatch, JsonPatchError, type Operation } from "fast-json-patch";
import mergePatch from "json-merge-patch";
import { ApiError, badRequest } from "../errors";
import { isRecord } from "../records";

export const MERGE_PATCH_TYPE = "application/merge-patch+json";
export const JSON_PATCH_TYPE = "application/json-patch+json";
/** The patch formats, named by their media types. */
export type PatchType = typeof MERGE_PATCH_TYPE | typeof JSON_PATCH_TYPE;
export const PATCH_TYPES: readonly PatchType[] = [MERGE_PATCH_TYPE, JSON_PATCH_TYPE];

/**
 * Applies a patch document to the object as the client sees it (secrets redacted), so a JSON patch
 * `test` can never be used to guess a stored secret. As in Kubernetes, a patch that is not a list of
 * operations is a 400, and one that cannot be applied (a failed `test`, a missing path) is a 422.
 */
export function applyPatchDocument(type: PatchType, target: object, patch: unknown): unknown {
  if (type === MERGE_PATCH_TYPE) return mergePatch.apply(structuredClone(target), patch);
  if (!Array.isArray(patch) || !patch.every(isRecord)) {
    throw badRequest(
      'a JSON patch must be an array of operations, such as [{"op": "replace", "path": "/spec/provider", "value": "cloud"}]',
    );
  }
  try {
    return applyPatch(structuredClone(target), patch as unknown as Operation[], true, false).newDocument;
  } catch (error) {
    // Whatever the library throws comes from the patch (the target is a well-formed object), so it is
    // the client's to fix; fast-json-patch names the failing operation in its own errors.
    const index = error instanceof JsonPatchError ? (error.index ?? 0) : undefined;
    const where = index === undefined ? "" : ` at operation ${index} (${describe(patch[index])})`;
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ApiError("Invalid", `the JSON patch could not be applied${where}: ${reason}`);
  }
}

function describe(operation: Record<string, unknown> | undefined): string {
  return `${String(operation?.op)} ${String(operation?.path)}`;
}
