import type { ApiObject } from "../../../sdk/client/types";
import { badRequest, invalid } from "../../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../../sdk/schema";
import { isRecord } from "../../records";
import type { Structure } from "../managed-fields/structure";
import { TRACKED_METADATA, type Tracked, trackedOf, type WrittenPart } from "../managed-fields/tracked";
import { configProblems } from "../managed-fields/values";

/** A JSON value without its nulls: an applied `null` sets nothing (kubectl sends `creationTimestamp: null`). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isRecord(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null) continue;
    Object.defineProperty(kept, key, {
      value: withoutNulls(field),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return kept;
}

/** Checks what Kubernetes checks of an applied configuration before it merges anything. */
function readConfig(kind: KindName, name: string, body: unknown): Record<string, unknown> {
  if (!isRecord(body)) {
    throw badRequest(
      `an apply patch must be one object: a ${kind} with apiVersion, kind, metadata and the fields you manage`,
    );
  }
  const config = withoutNulls(body) as Record<string, unknown>;
  const metadata = config.metadata ?? {};
  if (!isRecord(metadata)) throw badRequest("metadata must be an object");
  if (body.metadata !== undefined && isRecord(body.metadata) && body.metadata.managedFields !== undefined) {
    throw badRequest(
      "metadata.managedFields must be nil: an apply patch names the fields it manages by sending them",
    );
  }
  if (metadata.name !== undefined && metadata.name !== name) {
    throw badRequest(
      `the name of the object (${String(metadata.name)}) does not match the name on the URL (${name}); set metadata.name to "${name}"`,
    );
  }
  return config;
}

/** The apply configuration read from the body, and its fields; 422 when they do not fit `structure`. */
export function checkedConfig(
  kind: KindName,
  name: string,
  body: unknown,
  structure: Structure,
  part?: WrittenPart,
) {
  const config = readConfig(kind, name, body);
  const configTracked = trackedOf(config, part);
  const problems = configProblems(structure, configTracked);
  if (problems.length > 0) {
    throw invalid(
      KINDS[kind],
      name,
      problems.map((problem) => ({ reason: "FieldValueInvalid", ...problem })),
    );
  }
  return { config, configTracked };
}

/**
 * The body admission reads: the merged client metadata and spec, and beside them whatever else the
 * configuration holds (unknown fields are reported or dropped per fieldValidation; a uid or a
 * resourceVersion is a precondition, as in a PUT).
 */
export function candidateBody(
  kind: KindName,
  name: string,
  config: Record<string, unknown>,
  merged: Tracked,
  existing: ApiObject | undefined,
): Record<string, unknown> {
  const configMetadata = isRecord(config.metadata) ? config.metadata : {};
  const metadata: Record<string, unknown> = { ...configMetadata };
  for (const key of TRACKED_METADATA) {
    if (merged.metadata?.[key] === undefined) delete metadata[key];
    else metadata[key] = merged.metadata[key];
  }
  metadata.name = name;
  metadata.resourceVersion = configMetadata.resourceVersion ?? existing?.metadata.resourceVersion;
  const { status: _ignored, ...rest } = config;
  return {
    ...rest,
    apiVersion: config.apiVersion,
    kind: config.kind ?? kind,
    metadata,
    spec: merged.spec ?? {},
  };
}
