import { ApiError } from "../../sdk/errors";
import { isPlaceholder, type KindName, secretPaths } from "../../sdk/schema";
import { formatPath } from "../../sdk/schema/violation";
import { isRecord } from "../../sdk/shared/records";
import { admit, readEnvelope } from "../../server/admission";
import { valueAt } from "../../server/records";
import type { StoredObject } from "../../server/storage";
import { type AdmissionRequest, type AdmissionResponse, allow, deny, type JsonPatch } from "./review";
import {
  joinSecrets,
  SECRET_ANNOTATION,
  type SecretKeeper,
  type SecretValues,
  sameValues,
  secretNameOf,
  splitSecrets,
} from "./secrets";

/**
 * The two webhooks, both from the local server's admission code (server/admission): what one server
 * refuses, the other refuses with the same causes, and what one stores, the other stores.
 *
 * kube-apiserver runs them in its order: mutating webhooks, then the CRD's schema (types, required fields,
 * CEL rules), then validating webhooks. So the mutating one fills what the schema's per-field defaults
 * cannot (defaults that depend on other fields), moves secret values into Secrets and sends the warnings;
 * it lets an object the schema refuses through unchanged, for the CRD or the validating webhook to refuse
 * with every cause.
 */

/** A kube object as the admission code reads it: the stored object's shape (what the local server keeps). */
const stored = (object: Record<string, unknown> | null | undefined) =>
  (object ?? undefined) as StoredObject | undefined;

/**
 * The local server's admission of the request's object, or the Status it refuses it with. `previousValues`
 * (the Secret the old object names) go back in place of its placeholders, so that a placeholder the client
 * sends back is restored to the stored value, as on the local server, before the value is judged.
 */
function admitted(request: AdmissionRequest, previousValues: SecretValues = {}) {
  const kind: KindName = request.kind.kind;
  try {
    const envelope = readEnvelope(kind, request.object);
    const old = request.oldObject ?? undefined;
    const existing =
      old === undefined || !isRecord(old.spec)
        ? old
        : { ...old, spec: joinSecrets(kind, old.spec, previousValues) };
    return { ok: true as const, ...admit(kind, envelope, "Ignore", stored(existing)) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false as const, status: error.status };
    throw error;
  }
}

export function validate(request: AdmissionRequest): AdmissionResponse {
  const result = admitted(request);
  // Its warnings were sent by the mutating webhook, about the object as the client wrote it.
  if (result.ok || onlyAtPlaceholders(request, result.status.details?.causes ?? []))
    return allow(request.uid);
  return deny(request.uid, result.status);
}

/**
 * Whether every cause is about a secret value the object holds as a placeholder: the mutating webhook put
 * it there after judging the value it took out (which this webhook cannot read back on a dry run), so a
 * rule on the value (key-data-base64) must not judge the placeholder.
 */
function onlyAtPlaceholders(request: AdmissionRequest, causes: readonly { field?: string }[]): boolean {
  const spec = request.object?.spec;
  if (causes.length === 0 || !isRecord(spec)) return false;
  const placeholders = new Set(
    secretPaths(request.kind.kind, spec)
      .filter((path) => isPlaceholder(valueAt(spec, path)))
      .map((path) => formatPath(["spec", ...path])),
  );
  return causes.every(({ field }) => field !== undefined && placeholders.has(field));
}

export async function mutate(request: AdmissionRequest, secrets: SecretKeeper): Promise<AdmissionResponse> {
  const previous = request.oldObject ?? undefined;
  const previousValues = await secrets.valuesOf(previous);
  const result = admitted(request, previousValues);
  if (!result.ok) return allow(request.uid);
  const kind = request.kind.kind;
  const { spec, values } = splitSecrets(kind, result.object.spec, previousValues);

  let secretName = secretNameOf(previous);
  if (Object.keys(values).length === 0) secretName = undefined;
  else if (secretName === undefined || !sameValues(values, previousValues)) {
    // A dry run writes nothing: its answer shows placeholders and no Secret.
    secretName = request.dryRun ? undefined : await secrets.mint(kind, prefixOf(request), values);
  }
  const patch: JsonPatch = [{ op: "replace", path: "/spec", value: spec }];
  patch.push(...annotationPatch(request.object ?? {}, secretName));
  return allow(request.uid, patch, result.warnings);
}

/** The object's name, or its generateName on a create that has no name yet. */
function prefixOf(request: AdmissionRequest): string {
  const metadata = (request.object?.metadata ?? {}) as { name?: string; generateName?: string };
  return (metadata.name ?? metadata.generateName ?? "object").replace(/\.+$/, "");
}

/** Sets (or removes) the Secret annotation whatever the client sent: only the webhook names Secrets. */
function annotationPatch(object: Record<string, unknown>, secretName: string | undefined): JsonPatch {
  const annotations = (object.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
  const path = `/metadata/annotations/${SECRET_ANNOTATION.replace("~", "~0").replace("/", "~1")}`;
  if (secretName === undefined)
    return annotations?.[SECRET_ANNOTATION] === undefined ? [] : [{ op: "remove", path }];
  if (annotations === undefined)
    return [{ op: "add", path: "/metadata/annotations", value: { [SECRET_ANNOTATION]: secretName } }];
  return [{ op: "add", path, value: secretName }];
}
