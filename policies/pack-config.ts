import { isRecord } from "../sdk/shared/records";
import { isValidDate } from "./dates";

/**
 * A `--policy-pack-config` file as the Pulumi CLI reads it, in either of its forms: unversioned (policy name ->
 * a level or `{ enforcementLevel?, ...settings }`, `all` for every policy), or version 2 (`{ "version": 2,
 * "policies": {…}, "exceptions": {…} }`), whose exceptions the CLI applies itself
 * (pkg/resource/analyzer/exceptions.go): `{ "<id>": { "reason", "match": [{ "policies", "targets" }] } }`.
 * An exception may also carry the pack's `owner` and `expires`, which the CLI ignores and the pack enforces
 * (policies/exceptions.ts). The pack's policy `policy-exceptions`, the pull-request report and the audit read
 * the file through this one module.
 */

/** A policy exception of a version-2 file: Pulumi's fields, and the pack's owner and expiry. */
export interface PolicyException {
  id: string;
  reason: string;
  match: { policies: string[]; targets: string[] }[];
  owner?: string;
  /** `YYYY-MM-DD`: the exception applies through that day (UTC). */
  expires?: string;
}

export interface PackConfig {
  /** Policy name (or `all`) -> its level or settings, as the pack's policies get them. */
  policies: Record<string, unknown>;
  exceptions: PolicyException[];
}

/** A mistake in the file, naming where it is (`exceptions.EXC-1.expires`) and how to fix it. */
export class PackConfigError extends Error {
  constructor(where: string, problem: string) {
    super(`policy pack config: ${where} ${problem}`);
    this.name = "PackConfigError";
    this.stack = `${this.name}: ${this.message}`;
  }
}

const LEVELS = new Set(["advisory", "mandatory", "remediate", "disabled"]);
const FILE_KEYS = ["version", "policies", "exceptions", "environments"];
const EXCEPTION_KEYS = ["reason", "match", "owner", "expires"];
/** Pulumi's rule for an exception ID (tokens.IsName). */
const EXCEPTION_ID = /^[A-Za-z0-9_.-]+$/;

function parseJson(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PackConfigError("the file", `is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(parsed)) throw new PackConfigError("the file", "must be a JSON object");
  return parsed;
}

function checkPolicies(policies: Record<string, unknown>, known: ReadonlySet<string>, at: string): void {
  for (const [name, value] of Object.entries(policies)) {
    if (name !== "all" && !known.has(name))
      throw new PackConfigError(`${at}${name}`, "is not a policy of the pack: fix its spelling");
    const level = typeof value === "string" ? value : isRecord(value) ? value.enforcementLevel : undefined;
    if (level !== undefined && (typeof level !== "string" || !LEVELS.has(level)))
      throw new PackConfigError(
        `${at}${name}`,
        `has enforcementLevel ${JSON.stringify(level)}: use advisory, mandatory, remediate or disabled`,
      );
  }
}

function stringList(value: unknown, where: string, what: string): string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((item) => typeof item !== "string" || item === "")
  )
    throw new PackConfigError(where, `must list at least one ${what}`);
  return value as string[];
}

function readException(id: string, value: unknown, known: ReadonlySet<string>): PolicyException {
  const at = `exceptions.${id}`;
  if (!EXCEPTION_ID.test(id))
    throw new PackConfigError(at, "has an ID Pulumi refuses: use only letters, digits, '-', '.' and '_'");
  if (!isRecord(value)) throw new PackConfigError(at, "must be an object with reason and match");
  for (const key of Object.keys(value))
    if (!EXCEPTION_KEYS.includes(key))
      throw new PackConfigError(
        `${at}.${key}`,
        `is not a field of an exception (${EXCEPTION_KEYS.join(", ")})`,
      );
  if (typeof value.reason !== "string" || value.reason.trim() === "")
    throw new PackConfigError(`${at}.reason`, "is missing: say why the violation is accepted");
  if (!Array.isArray(value.match) || value.match.length === 0)
    throw new PackConfigError(`${at}.match`, 'must list at least one { "policies", "targets" } entry');
  const match = value.match.map((entry: unknown, index) => {
    const where = `${at}.match[${index}]`;
    if (!isRecord(entry)) throw new PackConfigError(where, 'must be { "policies": [...], "targets": [...] }');
    const policies = stringList(entry.policies, `${where}.policies`, "policy");
    for (const policy of policies)
      if (!known.has(policy))
        throw new PackConfigError(
          `${where}.policies`,
          `names "${policy}", which is not a policy of the pack`,
        );
    const targets = stringList(entry.targets, `${where}.targets`, "resource URN");
    for (const target of targets)
      if (!target.startsWith("urn:pulumi:"))
        throw new PackConfigError(`${where}.targets`, `has "${target}", which is not a URN (urn:pulumi:…)`);
    return { policies, targets };
  });
  const exception: PolicyException = { id, reason: value.reason, match };
  for (const field of ["owner", "expires"] as const) {
    const given = value[field];
    if (given === undefined) continue;
    if (typeof given !== "string" || given.trim() === "")
      throw new PackConfigError(`${at}.${field}`, "must be a non-empty string");
    exception[field] = given;
  }
  if (exception.expires !== undefined && !isValidDate(exception.expires))
    throw new PackConfigError(
      `${at}.expires`,
      `is ${JSON.stringify(exception.expires)}, not a date: write YYYY-MM-DD`,
    );
  return exception;
}

/** The pack's own exemptions in a policy's settings (policies/exemptions.ts), by policy name. */
function policiesWithExemptions(policies: Record<string, unknown>): string[] {
  return Object.entries(policies)
    .filter(([, value]) => isRecord(value) && Array.isArray(value.exemptions) && value.exemptions.length > 0)
    .map(([name]) => name);
}

/**
 * Reads a policy pack config file; `known` are the pack's policy names. Throws a PackConfigError naming the
 * entry: a policy or an exception's policy the pack does not have, a malformed exception, or a file that mixes
 * the pack's `exemptions` with Pulumi's `exceptions` (one mechanism per file, so each violation has one answer).
 */
export function readPackConfig(text: string, known: ReadonlySet<string>): PackConfig {
  const file = parseJson(text);
  if (typeof file.version !== "number") {
    checkPolicies(file, known, "");
    return { policies: file, exceptions: [] };
  }
  if (file.version !== 2) throw new PackConfigError("version", `is ${file.version}: the versioned form is 2`);
  for (const key of Object.keys(file))
    if (!FILE_KEYS.includes(key))
      throw new PackConfigError(key, `is not a key of a version-2 config (${FILE_KEYS.join(", ")})`);
  const policies = file.policies ?? {};
  if (!isRecord(policies))
    throw new PackConfigError("policies", "must be an object of policy name -> config");
  checkPolicies(policies, known, "policies.");
  const exceptions = file.exceptions ?? {};
  if (!isRecord(exceptions))
    throw new PackConfigError("exceptions", "must be an object of exception ID -> exception");
  const read = Object.entries(exceptions).map(([id, value]) => readException(id, value, known));
  const exempting = policiesWithExemptions(policies);
  if (read.length > 0 && exempting.length > 0)
    throw new PackConfigError(
      `policies.${exempting[0]}.exemptions`,
      "mixes the pack's exemptions with Pulumi's exceptions in one file: move each exemption to an exception (its resource as a URN target, with its owner and expires)",
    );
  return { policies, exceptions: read };
}
