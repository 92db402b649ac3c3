import { isDeepStrictEqual } from "node:util";
import { moveWriteOnlyPasswords } from "../secrets";
import { containsUnknown, isKnown, isRecord } from "../sentinel";
import { type RuleInfo, type Violation, violation } from "../violation";
import { child } from "./helpers";

/**
 * A rule about changing a stored object: it compares the stored spec with the next one (both defaulted). The
 * server's admission refuses an update that breaks it; the provider's diff turns each violation into a
 * replacement (its path is the replace reason); the policy pack, which sees only new inputs, skips it.
 */
export interface ChangeRule {
  info: RuleInfo & { change: true };
  check(previous: unknown, next: unknown): Violation[];
}

type Mode = "backend" | "filter";

/**
 * The mode a (defaulted) ServiceConfigSpec runs in: the one definition the schema, the server and the
 * provider's replace decision use. Undefined when it cannot be told (unknown during preview, or both or
 * neither set, which `backend-filter-exclusive` reports): an unknowable mode never forces a replacement.
 */
export function serviceMode(config: unknown): Mode | undefined {
  if (!isRecord(config)) return undefined;
  if (isKnown(config.filter) && config.backend === undefined) return "filter";
  if (isKnown(config.backend) && config.filter === undefined) return "backend";
  return undefined;
}

function templateConfig(spec: unknown): unknown {
  if (!isRecord(spec)) return undefined;
  const template = child(spec, "template");
  return template && child(template, "spec");
}

export const serviceModeImmutable: ChangeRule = {
  info: {
    id: "service-mode-immutable",
    kinds: ["Service"],
    path: "spec.template.spec.backend | spec.template.spec.filter",
    severity: "error",
    description:
      "An existing Service cannot switch between backend mode and filter mode: keep its mode, or create a new Service.",
    change: true,
  },
  check(previous, next) {
    const before = serviceMode(templateConfig(previous));
    const after = serviceMode(templateConfig(next));
    if (before === undefined || after === undefined || before === after) return [];
    return [
      violation(
        this.info,
        ["spec", "template", "spec", after],
        "FieldValueForbidden",
        `the Service runs in ${before} mode and cannot switch to ${after} mode; keep ${before}, or create a new Service for ${after} mode`,
      ),
    ];
  },
};

export const revisionSpecImmutable: ChangeRule = {
  info: {
    id: "revision-spec-immutable",
    kinds: ["ServiceRevision"],
    path: "spec",
    severity: "error",
    description:
      "A ServiceRevision's spec is immutable: change the Service's template to mint a new revision, or create a new ServiceRevision.",
    change: true,
  },
  check(previous, next) {
    // A spec not yet known (preview) may turn out equal; the write-only password is stored as passwordData.
    if (containsUnknown(next)) return [];
    const before = moveWriteOnlyPasswords("ServiceRevision", previous);
    const after = moveWriteOnlyPasswords("ServiceRevision", next);
    if (isDeepStrictEqual(before, after)) return [];
    return [
      violation(
        this.info,
        ["spec"],
        "FieldValueForbidden",
        "a ServiceRevision is immutable; change the Service's template to mint a new revision, or create a new ServiceRevision",
      ),
    ];
  },
};
