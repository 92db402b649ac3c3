import { isKnown, isPlainObject } from "../sentinel";
import { type RuleInfo, type Violation, violation } from "../violation";
import { child } from "./helpers";

export const serviceModeImmutable: RuleInfo = {
  id: "service-mode-immutable",
  kinds: ["Service"],
  path: "spec.template.spec.backend | spec.template.spec.filter",
  severity: "error",
  description:
    "An existing Service cannot switch between backend mode and filter mode; create a new Service.",
};

type Mode = "backend" | "filter";

/** The mode a (defaulted) config runs in; undefined when it cannot be told (unknown or malformed). */
function modeOf(config: Record<string, unknown> | undefined): Mode | undefined {
  if (config === undefined) return undefined;
  if (isKnown(config.filter) && config.backend === undefined) return "filter";
  if (isKnown(config.backend) && config.filter === undefined) return "backend";
  return undefined;
}

function templateConfig(spec: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(spec)) return undefined;
  const template = child(spec, "template");
  return template && child(template, "spec");
}

/** Violations of an update from `previous` to `next`, both defaulted Service specs. */
export function modeSwitch(previous: unknown, next: unknown): Violation[] {
  const before = modeOf(templateConfig(previous));
  const after = modeOf(templateConfig(next));
  if (before === undefined || after === undefined || before === after) return [];
  return [
    violation(
      serviceModeImmutable,
      ["spec", "template", "spec", after],
      "FieldValueForbidden",
      `the Service runs in ${before} mode and cannot switch to ${after} mode; keep ${before}, or create a new Service for ${after} mode`,
    ),
  ];
}
