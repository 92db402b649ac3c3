import { objectRule } from "./helpers";

const ROLLBACK_MINIMUM = 2;

export const revisionHistoryMinimum = objectRule(
  {
    id: "revision-history-minimum",
    kinds: ["Service"],
    path: "spec.revisionHistoryLimit",
    severity: "warning",
    description: `Keeping fewer than ${ROLLBACK_MINIMUM} revisions leaves no earlier revision to roll back to or pin.`,
  },
  ({ value }) => {
    const limit = value.revisionHistoryLimit;
    if (typeof limit !== "number" || limit < 0 || limit >= ROLLBACK_MINIMUM) return [];
    return [
      {
        at: ["revisionHistoryLimit"],
        reason: "FieldValueInvalid",
        fix: `${limit} keeps no earlier revision to roll back to (liveRevision can only pin retained revisions); set ${ROLLBACK_MINIMUM} or more (default 10)`,
      },
    ];
  },
);
