import { isSetString, objectRule, SERVICE_KINDS } from "./helpers";

export const egressExclusive = objectRule(
  {
    id: "egress-exclusive",
    kinds: SERVICE_KINDS,
    path: "**.egress.gatewayRef",
    severity: "error",
    description:
      "egress.gatewayRef must be empty while egress.disabled is true (all egress is denied): remove gatewayRef, or set disabled to false to route egress through that gateway.",
  },
  ({ value }) =>
    value.disabled === true && isSetString(value.gatewayRef)
      ? [
          {
            at: ["gatewayRef"],
            reason: "FieldValueForbidden",
            fix: "must be empty while egress.disabled is true (all egress is denied); remove gatewayRef, or set disabled to false to route egress through that gateway",
          },
        ]
      : [],
);
