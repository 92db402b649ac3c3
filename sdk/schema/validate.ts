import { applyDefaults } from "./defaults";
import { structuralViolations } from "./issues";
import type { KindName } from "./kinds";
import { type ChangeRule, revisionSpecImmutable, serviceModeImmutable } from "./rules/changes";
import { isUnknown } from "./sentinel";
import { specSchema } from "./specs";
import { unknownFieldViolations } from "./unknown-fields";
import type { Violation } from "./violation";
import { forEachObject } from "./walk";

export interface ValidateOptions {
  /** "error" (default): each field the API does not define is a violation. "ignore": they are skipped. */
  unknownFields?: "error" | "ignore";
}

/** Cross-field rules, run on the defaulted spec so they see what the server will store. */
function ruleViolations(kind: KindName, spec: unknown): Violation[] {
  const violations: Violation[] = [];
  forEachObject(
    specSchema(kind),
    spec,
    ({ value, path, meta }) => {
      for (const rule of meta?.rules ?? []) {
        if (rule.info.kinds.includes(kind)) violations.push(...rule.check({ value, path }));
      }
    },
    ["spec"],
  );
  return violations;
}

/** The rules about changes, per kind; each gets both specs with defaults applied. */
const CHANGE_RULES: Readonly<Record<KindName, readonly ChangeRule[]>> = {
  Proxy: [],
  Service: [serviceModeImmutable],
  ServiceRevision: [revisionSpecImmutable],
};

/**
 * Violations of changing a stored spec `previous` into `next` (a Service switching between backend and filter
 * mode, any change to a ServiceRevision's spec). Only the rules about changes: validate `next` itself with
 * validateSpec. The server refuses such an update; the provider replaces the object instead. Never throws.
 */
export function validateUpdate(kind: KindName, previous: unknown, next: unknown): Violation[] {
  const before = applyDefaults(kind, previous);
  const after = applyDefaults(kind, next);
  return CHANGE_RULES[kind].flatMap((rule) => rule.check(before, after));
}

/**
 * Every violation of `spec` (a kind's spec, without the envelope): structure (zod), unknown fields and every
 * rule. Never throws on any spec; the unknown sentinel anywhere is never a violation.
 */
export function validateSpec(kind: KindName, spec: unknown, opts: ValidateOptions = {}): Violation[] {
  if (isUnknown(spec)) return [];
  return [
    ...structuralViolations(kind, spec),
    ...(opts.unknownFields === "ignore" ? [] : unknownFieldViolations(kind, spec)),
    ...ruleViolations(kind, applyDefaults(kind, spec)),
  ];
}
