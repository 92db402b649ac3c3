import { parseDuration } from "../duration";
import { FIELD_DEFAULTS } from "../field-defaults";
import { objectRule, quote } from "./helpers";

function defaultsText(): string {
  const { drainTimeout: drain, minimumDrainTime: minimum } = FIELD_DEFAULTS;
  return drain === minimum
    ? `both default to ${quote(drain)}`
    : `minimumDrainTime defaults to ${quote(minimum)}, drainTimeout to ${quote(drain)}`;
}

export const drainMinimum = objectRule(
  {
    id: "drain-minimum",
    kinds: ["Proxy"],
    path: "spec.shutdown.minimumDrainTime",
    severity: "error",
    get description() {
      return `shutdown.minimumDrainTime must not be less than shutdown.drainTimeout (${defaultsText()}): raise minimumDrainTime to drainTimeout or more, or lower drainTimeout.`;
    },
  },
  ({ value }) => {
    const { drainTimeout, minimumDrainTime } = value;
    if (typeof drainTimeout !== "string" || typeof minimumDrainTime !== "string") return [];
    const drainMs = parseDuration(drainTimeout);
    const minimumMs = parseDuration(minimumDrainTime);
    if (drainMs === undefined || minimumMs === undefined || minimumMs >= drainMs) return [];
    return [
      {
        at: ["minimumDrainTime"],
        reason: "FieldValueInvalid",
        fix: `${quote(minimumDrainTime)} is less than drainTimeout ${quote(drainTimeout)}; set minimumDrainTime to ${quote(drainTimeout)} or more (it defaults to ${quote(FIELD_DEFAULTS.minimumDrainTime)} when unset), or lower drainTimeout`,
      },
    ];
  },
);
