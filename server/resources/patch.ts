import { applyOperation, getValueByPointer, JsonPatchError, type Operation } from "fast-json-patch";
import mergePatch from "json-merge-patch";
import { apiError, badRequest } from "../../sdk/errors/server-errors";
import { isRecord } from "../records";
import { copyJson } from "../storage/copy";
import { tooLarge } from "./object-size";

export const MERGE_PATCH_TYPE = "application/merge-patch+json";
export const JSON_PATCH_TYPE = "application/json-patch+json";
/** The patch formats, named by their media types. */
export type PatchType = typeof MERGE_PATCH_TYPE | typeof JSON_PATCH_TYPE;
export const PATCH_TYPES: readonly PatchType[] = [MERGE_PATCH_TYPE, JSON_PATCH_TYPE];

/** Kubernetes' cap on the operations of one JSON patch (413 above it). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * Applies a patch document to the object as the client sees it (secrets redacted), so a JSON patch
 * `test` can never be used to guess a stored secret. As in Kubernetes, a patch that is not a list of
 * operations is a 400, and one that cannot be applied (a failed `test`, a missing path) is a 422.
 *
 * A merge patch can make the object at most as large as the object and the patch together; a JSON patch
 * can do much more, since each `copy` may double the document. So a JSON patch is bounded as Kubernetes
 * bounds it: at most MAX_JSON_PATCH_OPERATIONS operations, and at most `maxObjectBytes` copied in all,
 * checked before each copy is made. The work of a patch is then bounded by the limit, not by the patch.
 */
export function applyPatchDocument(
  type: PatchType,
  target: object,
  patch: unknown,
  maxObjectBytes: number,
): unknown {
  if (type === MERGE_PATCH_TYPE) return mergePatch.apply(copyJson(target), patch);
  // `null` is the empty JSON patch to kube-apiserver (evanphx/json-patch decodes it to no operations), and
  // clients send it: pulumi-kubernetes' update marshals the nil list of field-manager fixes it has none of.
  if (patch === null) return copyJson(target);
  if (!Array.isArray(patch) || !patch.every(isRecord)) {
    throw badRequest(
      'a JSON patch must be an array of operations, such as [{"op": "replace", "path": "/spec/provider", "value": "cloud"}]',
    );
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw apiError(
      "RequestEntityTooLarge",
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}; split the patch`,
    );
  }
  let document: unknown = copyJson(target);
  let copied = 0;
  for (const [index, operation] of (patch as unknown as Operation[]).entries()) {
    const copy = copyOf(document, operation);
    if (copy !== undefined) {
      copied += Buffer.byteLength(copy.json);
      if (copied > maxObjectBytes) {
        const where = `operation ${index} (${describe(operation)})`;
        throw tooLarge(`the JSON patch copies ${copied} bytes by ${where}`, maxObjectBytes);
      }
    }
    // A copy is the `add` of a clone of its value, as fast-json-patch makes it (JSON out and in again):
    // the JSON measured above is that clone's, so the value is serialized once.
    const applied =
      copy === undefined
        ? operation
        : { op: "add" as const, path: operation.path, value: JSON.parse(copy.json) };
    document = applyOne(document, applied, index, patch);
  }
  return document;
}

/** The JSON of the value a `copy` operation would copy; undefined for other operations and bad `from`s. */
function copyOf(document: unknown, operation: Operation): { json: string } | undefined {
  if (operation.op !== "copy" || typeof operation.from !== "string") return undefined;
  try {
    const json = JSON.stringify(getValueByPointer(document, operation.from));
    return json === undefined ? undefined : { json };
  } catch {
    return undefined; // an unresolvable `from`: applying the operation itself reports it
  }
}

function applyOne(document: unknown, operation: Operation, index: number, patch: unknown[]): unknown {
  try {
    // Validated, in place (the document is this patch's own copy), prototype keys banned.
    return applyOperation(document, operation, true, true, true, index).newDocument;
  } catch (error) {
    // Whatever the library throws comes from the patch (the target is a well-formed object), so it is
    // the client's to fix; fast-json-patch names the failing operation in its own errors.
    const where = error instanceof JsonPatchError ? ` at operation ${index} (${describe(patch[index])})` : "";
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw apiError("Invalid", `the JSON patch could not be applied${where}: ${reason}`);
  }
}

function describe(operation: unknown): string {
  const { op, path } = isRecord(operation) ? operation : {};
  return `${String(op)} ${String(path)}`;
}
