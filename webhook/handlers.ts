import { isDeepStrictEqual } from "node:util";
import { admit, readEnvelope, withDrainFinalizer } from "../admission";
import type { ApiObject } from "../sdk/client/types";
import { ApiError } from "../sdk/errors";
import { failureStatus } from "../sdk/errors/reasons";
import {
  joinSecrets,
  type KindName,
  SECRET_ANNOTATION,
  sameValues,
  secretNameOf,
  splitSecrets,
} from "../sdk/schema";
import { type AdmissionRequest, type AdmissionResponse, allow, deny, type JsonPatch } from "./review";
import type { SecretKeeper } from "./secrets";

/**
 * The webhook, from the local server's admission code (admission/): what one server refuses, the
 * other refuses with the same causes in the same words, and what one stores, the other stores.
 *
 * It is a mutating webhook, and the only one: it must see the secret values to check them (their formats)
 * and to move them into a Secret, and kube-apiserver calls mutating webhooks first, before the CRD's
 * schema. So it refuses what the local server refuses (every cause at once, structural ones included),
 * fills the defaults that depend on other fields (a CRD default is per field), sends the warnings and
 * stores the placeholders. A validating webhook after it would see placeholders where the values were,
 * and on a dry run no Secret to read them back from. kube-apiserver then checks the result against the
 * CRD's schema and CEL rules, which stand alone where the webhook is not installed (kubectl apply -f
 * deploy/crds/).
 */

/** The local server's admission of `object`, or the Status it refuses it with. */
function admitted(kind: KindName, object: unknown, existing: ApiObject | undefined) {
  try {
    return { ok: true as const, ...admit(kind, readEnvelope(kind, object), "Ignore", existing) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false as const, status: error.status };
    throw error;
  }
}

export interface ReviewOptions {
  /** Whether a controller drains Proxies: a Proxy is created with its finalizer (see withDrainFinalizer). */
  drainProxies: boolean;
}

export async function admitReview(
  request: AdmissionRequest,
  secrets: SecretKeeper,
  options: ReviewOptions,
): Promise<AdmissionResponse> {
  const kind = request.kind.kind;
  // Only an UPDATE has a stored object; a CREATE's oldObject (kube-apiserver sends none) is ignored.
  const previous = request.operation === "UPDATE" ? (request.oldObject ?? undefined) : undefined;
  // The Secret an update keeps is the stored object's, never one the review's oldObject names alone: a
  // review naming another object's Secret would have its values copied into a Secret of its own.
  if (previous && secretNameOf(previous) !== undefined) {
    const differs = await secrets.differsFromStored(kind, previous);
    if (differs !== undefined) return deny(request.uid, failureStatus("Conflict", differs));
  }
  if (previous && (await lostItsSecret(previous, secrets))) return metadataOnly(request, previous);
  const previousValues = await secrets.valuesOf(previous);
  // The stored object as the local server keeps it (a kube object has its shape), values in place: the
  // placeholders a client writes back keep them, and the change rules compare what was stored.
  const existing = previous && {
    ...(previous as unknown as ApiObject),
    spec: joinSecrets(kind, (previous.spec ?? {}) as Record<string, unknown>, previousValues),
  };
  const result = admitted(kind, request.object, existing);
  if (!result.ok) return deny(request.uid, result.status);
  const { spec, values } = splitSecrets(kind, result.object.spec, previousValues);

  let secretName = secretNameOf(previous);
  if (Object.keys(values).length === 0) secretName = undefined;
  else if (secretName === undefined || !sameValues(values, previousValues)) {
    // A dry run writes nothing: its answer shows placeholders and no Secret.
    if (!request.dryRun) {
      const refused = secrets.mintRefusal(values);
      if (refused !== undefined) return deny(request.uid, refused);
    }
    secretName = request.dryRun ? undefined : await secrets.mint(kind, prefixOf(request), values);
  }
  const patch: JsonPatch = [{ op: "replace", path: "/spec", value: spec }];
  patch.push(...annotationsPatch(request.object, result.object.metadata.annotations, secretName));
  if (request.operation === "CREATE" && options.drainProxies)
    patch.push(...drainFinalizerPatch(request.object));
  return allow(request.uid, patch, result.warnings);
}

/**
 * Whether `previous` is being deleted and its Secret is gone already: Foreground propagation has the
 * garbage collector delete an object's dependents, its Secret among them, before the object, which a
 * finalizer may keep a while longer (and the collector's own update removes `foregroundDeletion`).
 */
async function lostItsSecret(previous: Record<string, unknown>, secrets: SecretKeeper): Promise<boolean> {
  const { deletionTimestamp } = previous.metadata as { deletionTimestamp?: string };
  return deletionTimestamp !== undefined && !(await secrets.kept(previous));
}

/** Without its values, such an object may change its metadata (a finalizer removed), not its spec. */
function metadataOnly(request: AdmissionRequest, previous: Record<string, unknown>): AdmissionResponse {
  const object = request.object ?? {};
  const unchanged =
    isDeepStrictEqual(object.spec, previous.spec) && secretNameOf(object) === secretNameOf(previous);
  if (unchanged) return allow(request.uid);
  const { name } = previous.metadata as { name: string };
  const why = "is being deleted and its Secret is gone: only its metadata can change";
  return deny(request.uid, failureStatus("Conflict", `${request.kind.kind} "${name}" ${why}`));
}

/** The finalizers with the drain's added, for a Proxy that lacks it. */
function drainFinalizerPatch(object: Record<string, unknown> | null | undefined): JsonPatch {
  const metadata = (object?.metadata ?? {}) as { finalizers?: string[] };
  const { finalizers } = withDrainFinalizer({ kind: String(object?.kind), metadata }).metadata;
  if (finalizers === metadata.finalizers) return [];
  return [{ op: "add", path: "/metadata/finalizers", value: finalizers }];
}

/** The object's name, or its generateName on a create that has no name yet. */
function prefixOf(request: AdmissionRequest): string {
  const metadata = (request.object?.metadata ?? {}) as { name?: string; generateName?: string };
  return (metadata.name ?? metadata.generateName ?? "object").replace(/\.+$/, "");
}

/**
 * The annotations as admitted (kubectl's last applied configuration without secret values), with the
 * Secret annotation set or removed whatever the client sent: only the webhook names Secrets.
 */
function annotationsPatch(
  object: Record<string, unknown> | null | undefined,
  admitted: Readonly<Record<string, string>> | undefined,
  secretName: string | undefined,
): JsonPatch {
  const sent = (object?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
  const { [SECRET_ANNOTATION]: _sent, ...kept } = admitted ?? {};
  const annotations: Record<string, string> = { ...kept };
  if (secretName !== undefined) annotations[SECRET_ANNOTATION] = secretName;
  if (isDeepStrictEqual(annotations, sent ?? {})) return [];
  if (Object.keys(annotations).length === 0) return [{ op: "remove", path: "/metadata/annotations" }];
  return [{ op: "add", path: "/metadata/annotations", value: annotations }];
}
