import type { ObjectMeta, OwnerReference } from "../sdk/client/types";
import type { StatusCause } from "../sdk/errors";
import { badRequest } from "../sdk/errors/server-errors";
import { KINDS, type KindName, MAX_NAME_LENGTH } from "../sdk/schema";
import { metadataIssues } from "../sdk/schema/metadata";
import { isRecord, withoutUndefined } from "../sdk/shared/records";

/** The metadata a client may write; the rest of ObjectMeta is server-owned. */
export type ClientMeta = Pick<
  ObjectMeta,
  "generateName" | "resourceVersion" | "labels" | "annotations" | "ownerReferences" | "finalizers"
> & { name?: string };

/** A request body taken apart: envelope checked, spec not yet looked at. */
export interface Envelope {
  metadata: ClientMeta;
  /** `metadata.uid` as sent: on an update, a precondition (the object must still be that one), as in Kubernetes. */
  uid?: string;
  spec: unknown;
  /** JSON paths of envelope fields this API does not have (the spec's are found by the schema). */
  unknownFields: string[];
}

const TOP_LEVEL: ReadonlySet<string> = new Set(["apiVersion", "kind", "metadata", "spec", "status"]);
/** Server-owned metadata: accepted (clients send back what they read) and ignored, but for uid (see Envelope). */
const SERVER_METADATA: ReadonlySet<string> = new Set([
  "uid",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  // Computed by the API from each write (server/resources/apply); entries sent back are read there.
  "managedFields",
]);
const CLIENT_METADATA: ReadonlySet<string> = new Set([
  "name",
  "generateName",
  "resourceVersion",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
]);

/**
 * Checks what Kubernetes checks while decoding a body: a JSON object whose apiVersion and kind match
 * the path and whose metadata fields have the right types. Failures here are 400 BadRequest.
 */
export function readEnvelope(kind: KindName, body: unknown): Envelope {
  const { apiVersion } = KINDS[kind];
  if (!isRecord(body))
    throw badRequest(
      `the request body must be a JSON object: a ${kind} with apiVersion, kind, metadata and spec`,
    );
  if (body.apiVersion !== apiVersion || body.kind !== kind) {
    throw badRequest(
      `apiVersion and kind must match the path: expected apiVersion "${apiVersion}" and kind "${kind}", got ${describe(body.apiVersion)} and ${describe(body.kind)}`,
    );
  }
  const unknownFields = Object.keys(body).filter((key) => !TOP_LEVEL.has(key));
  const rawMetadata = body.metadata ?? {};
  if (!isRecord(rawMetadata)) throw badRequest("metadata must be a JSON object");
  for (const key of Object.keys(rawMetadata)) {
    if (!CLIENT_METADATA.has(key) && !SERVER_METADATA.has(key)) unknownFields.push(`metadata.${key}`);
  }
  const metadata: ClientMeta = {
    name: optionalString(rawMetadata, "name"),
    generateName: optionalString(rawMetadata, "generateName"),
    resourceVersion: optionalString(rawMetadata, "resourceVersion"),
    labels: stringMap(rawMetadata, "labels"),
    annotations: stringMap(rawMetadata, "annotations"),
    ownerReferences: ownerReferences(rawMetadata),
    finalizers: finalizers(rawMetadata),
  };
  const uid = optionalString(rawMetadata, "uid");
  return {
    metadata: withoutUndefined(metadata),
    ...(uid !== undefined && { uid }),
    spec: body.spec ?? {},
    unknownFields,
  };
}

/**
 * What Kubernetes validates in client metadata, as 422 causes: the checks are sdk/schema's (`metadataIssues`),
 * this only maps them. `creating` also needs a name (or generateName).
 */
export function metadataCauses(metadata: ClientMeta, creating: boolean): StatusCause[] {
  return metadataIssues(metadata, { creating }).map(({ path, reason, message }) => ({
    field: path,
    reason,
    message,
  }));
}

/** A field the API does not have, refused under `fieldValidation=Strict`. */
export function unknownFieldCause(field: string): StatusCause {
  return {
    reason: "FieldValueInvalid",
    field,
    message: `${field}: unknown field; remove it (fieldValidation=Strict)`,
  };
}

const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const SUFFIX_LENGTH = 5;

/** Kubernetes' generateName: the prefix (cut to leave room) plus five random characters. */
export function generateName(prefix: string): string {
  let suffix = "";
  for (let i = 0; i < SUFFIX_LENGTH; i++)
    suffix += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return prefix.slice(0, MAX_NAME_LENGTH - SUFFIX_LENGTH) + suffix;
}

function optionalString(metadata: Record<string, unknown>, field: string): string | undefined {
  const value = metadata[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string")
    throw badRequest(`metadata.${field} must be a string, got ${describe(value)}`);
  return value;
}

function stringMap(metadata: Record<string, unknown>, field: string): Record<string, string> | undefined {
  const value = metadata[field];
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || !Object.values(value).every((entry) => typeof entry === "string")) {
    throw badRequest(`metadata.${field} must be an object of string values, such as {"team": "edge"}`);
  }
  return value as Record<string, string>;
}

function finalizers(metadata: Record<string, unknown>): string[] | undefined {
  const value = metadata.finalizers;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string"))
    throw badRequest('metadata.finalizers must be an array of strings, such as ["example.dev/cleanup"]');
  return value as string[];
}

function ownerReferences(metadata: Record<string, unknown>): OwnerReference[] | undefined {
  const value = metadata.ownerReferences;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    throw badRequest("metadata.ownerReferences must be an array of owner references");
  return value.map((entry: unknown, index) => {
    const field = `metadata.ownerReferences[${index}]`;
    if (!isRecord(entry)) throw badRequest(`${field} must be an object with apiVersion, kind, name and uid`);
    const text = (key: string) => {
      const part = entry[key] ?? "";
      if (typeof part !== "string")
        throw badRequest(`${field}.${key} must be a string, got ${describe(part)}`);
      return part;
    };
    const flag = (key: string) => {
      const part = entry[key];
      if (part !== undefined && typeof part !== "boolean")
        throw badRequest(`${field}.${key} must be a boolean`);
      return part as boolean | undefined;
    };
    return withoutUndefined({
      apiVersion: text("apiVersion"),
      kind: text("kind"),
      name: text("name"),
      uid: text("uid"),
      controller: flag("controller"),
      blockOwnerDeletion: flag("blockOwnerDeletion"),
    });
  });
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string")
    return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}...` : value);
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : `a ${typeof value}`;
}
