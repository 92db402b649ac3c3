import { isPlainObject, isUnknown } from "./sentinel";

/**
 * Kubernetes object-metadata syntax (apimachinery's validation): object names, label and annotation keys, label
 * values. The server's admission and label selectors, the provider's check and the spec's own name references
 * all use these.
 */

const DNS1123_LABEL = "[a-z0-9](?:[-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(?:\\.${DNS1123_LABEL})*$`);
const QUALIFIED_NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

export const MAX_NAME_LENGTH = 253;

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
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return `key "${key}" must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit, optionally after a DNS-1123 prefix and "/" (e.g. "example.dev/team")`;
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    return `value "${value}" must be empty or at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  }
  return undefined;
}

/**
 * Problems with an object's declared metadata (name, labels, annotations), each message starting with its path.
 * Values not known yet (the unknown sentinel, or anything not a string) are left for later.
 */
export function metadataProblems(metadata: {
  name?: unknown;
  labels?: unknown;
  annotations?: unknown;
}): string[] {
  const problems: string[] = [];
  const name = metadata.name;
  if (typeof name === "string" && !isUnknown(name)) {
    const problem = nameProblem(name);
    if (problem) problems.push(`metadata.name: ${problem}`);
  }
  for (const [field, checkValue] of [
    ["labels", true],
    ["annotations", false],
  ] as const) {
    const entries = metadata[field];
    if (!isPlainObject(entries)) continue;
    for (const [key, value] of Object.entries(entries)) {
      const problem =
        keyProblem(key) ??
        (checkValue && typeof value === "string" && !isUnknown(value) ? labelValueProblem(value) : undefined);
      if (problem) problems.push(`metadata.${field}: ${problem}`);
    }
  }
  return problems;
}
