import type { RuleInfo } from "../violation";
import { ALL_KINDS } from "./helpers";

// Rules the zod schemas check on their own; validate.ts turns zod issues into violations of these ids.

export const unknownField: RuleInfo = {
  id: "unknown-field",
  kinds: ALL_KINDS,
  path: "**",
  severity: "error",
  description:
    "Every field must be one the API defines; a misspelt field fails instead of being dropped silently.",
};

export const requiredField: RuleInfo = {
  id: "required-field",
  kinds: ALL_KINDS,
  path: "**",
  severity: "error",
  description: "A field the API requires must be present; the message names the expected type or values.",
};

export const fieldType: RuleInfo = {
  id: "field-type",
  kinds: ALL_KINDS,
  path: "**",
  severity: "error",
  description: "A field's value has the JSON type the API defines (string, boolean, integer, object, array).",
};

export const enumValue: RuleInfo = {
  id: "enum-value",
  kinds: ["Service", "ServiceRevision"],
  path: "**.backend.protocol | **.filter.phase | **.filter.failureMode | **.bindings[*].type",
  severity: "error",
  description: "A field with a fixed set of values holds one of them; the message lists the allowed values.",
};

export const int32Range: RuleInfo = {
  id: "int32-range",
  kinds: ["Service", "ServiceRevision"],
  path: "spec.revisionHistoryLimit | **.backend.port",
  severity: "error",
  description: "Integers are int32: from -2147483648 to 2147483647.",
};
