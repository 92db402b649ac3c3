import { applyPatch, JsonPatchError, type Operation } from "fast-json-patch";
import mergePatch from "json-merge-patch";
import { ApiError, badRequest } from "../errors";
import { MERGE_PATCH_TYPE, type PatchType } from "../http/content-types";
import { isRecord } from "../records";

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
    if (!(error instanceof JsonPatchError)) throw error;
    const operation = patch[error.index ?? 0] ?? {};
    const reason = error.message.split("\n")[0];
    throw new ApiError(
      "Invalid",
      `the JSON patch could not be applied: operation ${error.index ?? 0} (${String(operation.op)} ${String(operation.path)}): ${reason}`,
    );
  }
}
