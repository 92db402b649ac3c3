import { BACKEND_PROTOCOLS, PORT_PROTOCOLS } from "../enums";
import { isKnown } from "../sentinel";
import { objectRule, quote, SERVICE_KINDS } from "./helpers";

const HTTP_PROTOCOLS = BACKEND_PROTOCOLS.filter((protocol) => !PORT_PROTOCOLS.includes(protocol));

export const backendFilterExclusive = objectRule(
  {
    id: "backend-filter-exclusive",
    kinds: SERVICE_KINDS,
    path: "spec.template.spec.filter | spec.filter",
    severity: "error",
    description:
      "A service runs in backend mode or in filter mode, so backend and filter are mutually exclusive: remove filter to run in backend mode, or remove backend to run as a filter.",
  },
  ({ value }) =>
    isKnown(value.backend) && isKnown(value.filter)
      ? [
          {
            at: ["filter"],
            reason: "FieldValueForbidden",
            fix: "backend and filter are mutually exclusive; remove filter to run in backend mode, or remove backend to run as a filter",
          },
        ]
      : [],
);

export const backendPortRequired = objectRule(
  {
    id: "backend-port-required",
    kinds: SERVICE_KINDS,
    path: "**.backend.port",
    severity: "error",
    description: `backend.port is required for protocol ${PORT_PROTOCOLS.join(" and ")}: set the port the backend listens on (1-65535).`,
  },
  ({ value }) =>
    typeof value.protocol === "string" && PORT_PROTOCOLS.includes(value.protocol) && value.port === undefined
      ? [
          {
            at: ["port"],
            reason: "FieldValueRequired",
            fix: `is required for protocol ${quote(value.protocol)}; set the port the backend listens on (1-65535)`,
          },
        ]
      : [],
);

export const backendPortIgnored = objectRule(
  {
    id: "backend-port-ignored",
    kinds: SERVICE_KINDS,
    path: "**.backend.port",
    severity: "warning",
    description: `backend.port is ignored for protocol ${HTTP_PROTOCOLS.join(" and ")} (only ${PORT_PROTOCOLS.join(" and ")} use a port): remove it.`,
  },
  ({ value }) =>
    typeof value.protocol === "string" &&
    isKnown(value.protocol) &&
    !PORT_PROTOCOLS.includes(value.protocol) &&
    isKnown(value.port)
      ? [
          {
            at: ["port"],
            reason: "FieldValueInvalid",
            fix: `is ignored for protocol ${quote(value.protocol)} (only ${PORT_PROTOCOLS.join(" and ")} use a port); remove it`,
          },
        ]
      : [],
);
