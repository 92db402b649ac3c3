import { isRecord } from "../shared/records";
import { isUnknown } from "./sentinel";
import type { CauseReason } from "./violation";

/**
 * Kubernetes object-metadata syntax (apimachinery's validation): object names, label and annotation keys, label
 * values. The server's admission and label selectors, the provider's check and the spec's own name references
 * all use these.
 */

const DNS1123_LABEL = "[a-z0-9](?:[-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(?:\\.${DNS1123_LABEL})*$`);
const QUALIFIED = "[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?";
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED}$`);
const LABEL_VALUE = new RegExp(`^(?:${QUALIFIED})?$`);
const MAX_LABEL_NAME_LENGTH = 63;

export const MAX_NAME_LENGTH = 253;

/**
 * Label keys and values as JSON-schema `pattern`s and lengths (Go's RE2 and ECMAScript read them alike), for
 * settings that name labels, which Pulumi validates before running a policy. A pattern cannot bound the
 * key's prefix and name separately: `keyProblem` does.
 */
export const LABEL_KEY_SCHEMA = {
  pattern: `^(?:${DNS1123_LABEL}(?:\\.${DNS1123_LABEL})*/)?${QUALIFIED}$`,
  maxLength: MAX_NAME_LENGTH + 1 + MAX_LABEL_NAME_LENGTH,
} as const;
export const LABEL_VALUE_SCHEMA = { pattern: LABEL_VALUE.source, maxLength: MAX_LABEL_NAME_LENGTH } as const;

/** Whether `name` is a DNS-1123 subdomain of at most 253 characters, as object names are. */
export function isObjectName(name: string): boolean {
  return nameProblem(name) === undefined;
}

/** Why `name` is not a DNS-1123 subdomain, or undefined when it is one. */
export function nameProblem(name: string): string | undefined {
  if (name.length > MAX_NAME_LENGTH) return `must be no more than ${MAX_NAME_LENGTH} characters`;
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return 'must be a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit (e.g. "my-proxy")';
  }
  return undefined;
}

/** Label and annotation keys: an optional DNS-1123 prefix and "/", then a name of at most 63 characters. */
export function keyProblem(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && nameProblem(prefix)) return `the prefix of key "${key}" ${nameProblem(prefix)}`;
  if (name.length === 0 || name.length > MAX_LABEL_NAME_LENGTH || !QUALIFIED_NAME.test(name)) {
    return `key "${key}" must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit, optionally after a DNS-1123 prefix and "/" (e.g. "example.dev/team")`;
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value.length > MAX_LABEL_NAME_LENGTH || !LABEL_VALUE.test(value)) {
    return `value "${value}" must be empty or at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  }
  return undefined;
}

/** One problem with an object's metadata: the field, the Kubernetes cause type, a message starting with the field. */
export interface MetadataIssue {
  path: string;
  reason: Extract<CauseReason, "FieldValueInvalid" | "FieldValueRequired">;
  message: string;
}

/** Metadata as written, of any shape: only the fields of the right type are looked at. */
export interface MetadataInput {
  name?: unknown;
  generateName?: unknown;
  labels?: unknown;
  annotations?: unknown;
  ownerReferences?: unknown;
}

/**
 * Every problem with an object's metadata, in order: the name (or `generateName`, which must stay a name once a
 * random suffix is added; on create one of the two is required), label keys and values, annotation keys, and
 * the required fields of owner references. Values not known yet (the unknown sentinel, or anything not a
 * string) are left for later. The server's admission maps these to `Status` causes; the provider's check
 * reports their messages (`metadataProblems`).
 */
export function metadataIssues(
  metadata: MetadataInput,
  options: { creating?: boolean } = {},
): MetadataIssue[] {
  const issues: MetadataIssue[] = [];
  const add = (path: string, reason: MetadataIssue["reason"], fix: string) =>
    issues.push({ path, reason, message: `${path}: ${fix}` });

  const { name, generateName } = metadata;
  if (name !== undefined && name !== null) {
    const problem = isKnownString(name) ? nameProblem(name) : undefined;
    if (problem) add("metadata.name", "FieldValueInvalid", problem);
  } else if (generateName !== undefined && generateName !== null) {
    const problem = isKnownString(generateName) ? nameProblem(`${generateName}x`) : undefined;
    if (problem)
      add("metadata.generateName", "FieldValueInvalid", `${problem} once a random suffix is added`);
  } else if (options.creating) {
    add(
      "metadata.name",
      "FieldValueRequired",
      'is required; set a DNS-1123 name such as "my-proxy", or metadata.generateName for a generated one',
    );
  }
  for (const [field, checkValue] of [
    ["labels", true],
    ["annotations", false],
  ] as const) {
    const entries = metadata[field];
    if (!isRecord(entries)) continue;
    for (const [key, value] of Object.entries(entries)) {
      const problem =
        keyProblem(key) ?? (checkValue && isKnownString(value) ? labelValueProblem(value) : undefined);
      if (problem) add(`metadata.${field}`, "FieldValueInvalid", problem);
    }
  }
  const references = Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences : [];
  references.forEach((reference: unknown, index) => {
    if (!isRecord(reference)) return;
    for (const field of ["apiVersion", "kind", "name", "uid"] as const) {
      if (reference[field] === "") {
        add(
          `metadata.ownerReferences[${index}].${field}`,
          "FieldValueRequired",
          "is required in an owner reference",
        );
      }
    }
  });
  return issues;
}

/** The messages of `metadataIssues` for declared metadata (name, labels, annotations), each starting with its path. */
export function metadataProblems(metadata: MetadataInput): string[] {
  return metadataIssues(metadata).map((issue) => issue.message);
}

function isKnownString(value: unknown): value is string {
  return typeof value === "string" && !isUnknown(value);
}
