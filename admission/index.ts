import type { ApiObject } from "../sdk/client/types";
import { badRequest, invalid } from "../sdk/errors/server-errors";
import {
  applyDefaults,
  findUnknownFields,
  isPlaceholder,
  KINDS,
  type KindName,
  moveWriteOnlyPasswords,
  secretPaths,
  stripUnknownFields,
  validateSpec,
  validateUpdate,
} from "../sdk/schema";
import { replaceAt, valueAt } from "../sdk/shared/records";
import { type Envelope, generateName, metadataCauses, unknownFieldCause } from "./envelope";
import { finalizerCauses } from "./finalizers";
import { redactLastApplied } from "./last-applied";
import { withSecretName } from "./secret-name";

export { type Envelope, readEnvelope } from "./envelope";
export { withDrainFinalizer } from "./finalizers";
export { LAST_APPLIED } from "./last-applied";
export { secretOwnerOf } from "./secret-name";
export { type AdmittedStatus, admitStatus } from "./status";

/** The `fieldValidation` query parameter: what happens to fields the API does not have. */
export type FieldValidation = "Strict" | "Warn" | "Ignore";
const FIELD_VALIDATIONS: readonly FieldValidation[] = ["Strict", "Warn", "Ignore"];

/** Kubernetes' default is Warn: unknown fields are dropped and each is named in a Warning header. */
export function parseFieldValidation(value: string | undefined): FieldValidation {
  if (value === undefined || value === "") return "Warn";
  if ((FIELD_VALIDATIONS as readonly string[]).includes(value)) return value as FieldValidation;
  throw badRequest(
    `fieldValidation: "${value}" is not supported; use one of ${FIELD_VALIDATIONS.join(", ")}`,
  );
}

export interface Admitted {
  /** What to store: defaults applied, unknown fields dropped, write-only passwords moved, no status. */
  object: ApiObject;
  /** Texts for `Warning` headers. */
  warnings: string[];
}

/**
 * Admission of a create (`existing` absent) or an update, shared by POST, PUT and both PATCH types.
 * Every problem becomes one cause of a single 422 Invalid; the spec's fields, defaults and rules are the
 * shared schema's.
 */
export function admit(
  kind: KindName,
  envelope: Envelope,
  fieldValidation: FieldValidation,
  existing?: ApiObject,
): Admitted {
  const warnings: string[] = [];
  const causes = metadataCauses(envelope.metadata, existing === undefined);
  const finalizers = finalizerCauses(envelope.metadata.finalizers, existing?.metadata);
  causes.push(...finalizers.causes);
  warnings.push(...finalizers.warnings);
  const { name: declared, generateName: prefix } = envelope.metadata;
  // A generated name exists only once the object is admitted; errors name no object that never was.
  const name = declared ?? (prefix === undefined ? undefined : generateName(prefix));

  let spec = envelope.spec;
  if (fieldValidation === "Strict") {
    causes.push(...envelope.unknownFields.map(unknownFieldCause));
  } else {
    const unknownFields = [...envelope.unknownFields, ...findUnknownFields(kind, spec)];
    if (fieldValidation === "Warn")
      warnings.push(...unknownFields.map((field) => `unknown field "${field}"`));
    spec = stripUnknownFields(kind, spec);
  }
  if (existing) spec = restoreRedactedSecrets(kind, spec, existing.spec);
  spec = applyDefaults(kind, spec);

  const unknownFields = fieldValidation === "Strict" ? "error" : "ignore";
  const violations = [
    ...validateSpec(kind, spec, { unknownFields }),
    ...(existing ? validateUpdate(kind, existing.spec, spec) : []),
  ];
  for (const violation of violations) {
    if (violation.severity === "warning") warnings.push(violation.message);
    else causes.push({ reason: violation.reason, message: violation.message, field: violation.path });
  }
  // metadataCauses requires a name (or generateName) on create, so a missing one always comes with its cause.
  if (causes.length > 0 || name === undefined) throw invalid(KINDS[kind], name, causes);

  const stored = moveWriteOnlyPasswords(kind, spec) as Record<string, unknown>;
  const annotations = redactLastApplied(kind, envelope.metadata.annotations);
  return {
    object: {
      apiVersion: KINDS[kind].apiVersion,
      kind,
      metadata: { ...envelope.metadata, name, ...(annotations !== undefined && { annotations }) },
      spec: stored,
    },
    warnings,
  };
}

/**
 * Admission on the local server, which keeps the secret values in its store: `admit`, then the name of the
 * Secret that stands for them, as kube-apiserver's admission webhook sets it.
 */
export function admitForStore(
  kind: KindName,
  envelope: Envelope,
  options: { fieldValidation: FieldValidation; dryRun: boolean },
  existing?: ApiObject,
): Admitted {
  const admitted = admit(kind, envelope, options.fieldValidation, existing);
  return { ...admitted, object: withSecretName(kind, admitted.object, existing, options.dryRun) };
}

/**
 * Responses carry placeholders instead of secrets, so a client that writes back what it read sends
 * placeholders: each one keeps the stored value at the same path.
 */
function restoreRedactedSecrets(kind: KindName, spec: unknown, stored: Record<string, unknown>): unknown {
  const restored = structuredClone(spec);
  for (const path of secretPaths(kind, restored)) {
    const original = valueAt(stored, path);
    if (isPlaceholder(valueAt(restored, path)) && original !== undefined) replaceAt(restored, path, original);
  }
  return restored;
}
