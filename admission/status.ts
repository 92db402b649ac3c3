import type { StatusCause } from "../sdk/errors";
import { invalid } from "../sdk/errors/server-errors";
import { findUnknownFields, KINDS, type KindName, statusProblem } from "../sdk/schema";
import { isRecord } from "../sdk/shared/records";
import type { FieldValidation } from ".";
import { type Envelope, unknownFieldCause } from "./envelope";

export interface AdmittedStatus {
  /** The status to store; undefined removes it (the request has none, or `null`). */
  status: Record<string, unknown> | undefined;
  /** Texts for `Warning` headers. */
  warnings: string[];
}

/**
 * Admission of a write to the status subresource (`/status`), as kube-apiserver's status strategy for a CRD
 * admits it: only `status` is kept, so only `status` is validated, against the schema the API declares for it
 * (`StatusSchema`, an object). The rest of the request was decoded like any write (its envelope read by
 * `readEnvelope`), so fields the API does not have, in the spec too, are refused or named per
 * `fieldValidation` even though the write drops them.
 */
export function admitStatus(
  kind: KindName,
  name: string,
  envelope: Envelope,
  status: unknown,
  fieldValidation: FieldValidation,
): AdmittedStatus {
  const warnings: string[] = [];
  const causes: StatusCause[] = [];
  const unknownFields = [
    ...envelope.unknownFields,
    ...(isRecord(envelope.spec) ? findUnknownFields(kind, envelope.spec) : []),
  ];
  if (fieldValidation === "Strict") {
    causes.push(...unknownFields.map(unknownFieldCause));
  } else if (fieldValidation === "Warn") {
    warnings.push(...unknownFields.map((field) => `unknown field "${field}"`));
  }
  const problem = statusProblem(status);
  if (problem !== undefined)
    causes.push({ reason: "FieldValueTypeInvalid", field: "status", message: `status: ${problem}` });
  if (causes.length > 0) throw invalid(KINDS[kind], name, causes);
  return { status: isRecord(status) ? status : undefined, warnings };
}
