import { FIELD_DEFAULTS } from "../field-defaults";
import { objectRule } from "./helpers";

const ROLLBACK_MINIMUM = 2;
const defaultLimit = () => FIELD_DEFAULTS.revisionHistoryLimit;

export const revisionHistoryMinimum = objectRule(
  {
    id: "revision-history-minimum",
    kinds: ["Service"],
    path: "spec.revisionHistoryLimit",
    severity: "warning",
    get description() {
      return `A spec.revisionHistoryLimit below ${ROLLBACK_MINIMUM} keeps no earlier revision to roll back to or pin: set ${ROLLBACK_MINIMUM} or more (default ${defaultLimit()}).`;
    },
  },
  ({ value }) => {
    const limit = value.revisionHistoryLimit;
    if (typeof limit !== "number" || limit < 0 || limit >= ROLLBACK_MINIMUM) return [];
    return [
      {
        at: ["revisionHistoryLimit"],
        reason: "FieldValueInvalid",
        fix: `${limit} keeps no earlier revision to roll back to (liveRevision can only pin retained revisions); set ${ROLLBACK_MINIMUM} or more (default ${defaultLimit()})`,
      },
    ];
  },
);
