import { parseDuration } from "../duration";
import { objectRule, quote } from "./helpers";

export const drainMinimum = objectRule(
  {
    id: "drain-minimum",
    kinds: ["Proxy"],
    path: "spec.shutdown.minimumDrainTime",
    severity: "error",
    description:
      "shutdown.minimumDrainTime must not be less than shutdown.drainTimeout (both default to 30s).",
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
        fix: `${quote(minimumDrainTime)} is less than drainTimeout ${quote(drainTimeout)}; set minimumDrainTime to ${quote(drainTimeout)} or more (it defaults to "30s" when unset), or lower drainTimeout`,
      },
    ];
  },
);
