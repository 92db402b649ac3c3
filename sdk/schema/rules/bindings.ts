import { BINDING_TYPES } from "../enums";
import { isKnown } from "../sentinel";
import { type Finding, objectRule, quote, SERVICE_KINDS } from "./helpers";

export const bindingTypeMatch = objectRule(
  {
    id: "binding-type-match",
    kinds: SERVICE_KINDS,
    path: "**.bindings[*].kv | **.bindings[*].secret | **.bindings[*].service",
    severity: "error",
    description: `A binding sets exactly the sub-object its type names (${BINDING_TYPES.join(", ")}): add that one and remove the others, or change type.`,
  },
  ({ value }) => {
    const type = value.type;
    if (!BINDING_TYPES.some((known) => known === type)) return [];
    const findings: Finding[] = [];
    for (const variant of BINDING_TYPES) {
      if (variant === type && value[variant] === undefined) {
        findings.push({
          at: [variant],
          reason: "FieldValueRequired",
          fix: `is required for a binding of type ${quote(type)}; add its settings`,
        });
      }
      if (variant !== type && isKnown(value[variant])) {
        findings.push({
          at: [variant],
          reason: "FieldValueForbidden",
          fix: `does not belong to a binding of type ${quote(type)}; remove it, or set type to ${quote(variant)}`,
        });
      }
    }
    return findings;
  },
);
