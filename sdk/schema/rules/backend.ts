import { PORT_PROTOCOLS } from "../enums";
import { isKnown } from "../sentinel";
import { objectRule, quote, SERVICE_KINDS } from "./helpers";

export const backendFilterExclusive = objectRule(
  {
    id: "backend-filter-exclusive",
    kinds: SERVICE_KINDS,
    path: "spec.template.spec.filter | spec.filter",
    severity: "error",
    description:
      "A service runs in backend mode or in filter mode: backend and filter are mutually exclusive.",
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
    description: "backend.port is required when backend.protocol is tcp or udp.",
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
    description: "backend.port is meaningful only for tcp and udp; it is ignored for http1 and http2.",
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
            fix: `is ignored for protocol ${quote(value.protocol)} (only tcp and udp use a port); remove it`,
          },
        ]
      : [],
);
