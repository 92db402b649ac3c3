import { KIND_NAMES } from "../kinds";
import type { RuleInfo } from "../violation";

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// Rules the zod schemas check on their own; validate.ts turns zod issues into violations of these ids.

export const unknownField: RuleInfo = {
  id: "unknown-field",
  kinds: KIND_NAMES,
  path: "**",
  severity: "error",
  description:
    "Every field must be one the API defines, so a misspelt field fails instead of being dropped: remove it or fix its spelling (the message suggests the closest name or lists the fields).",
};

export const requiredField: RuleInfo = {
  id: "required-field",
  kinds: KIND_NAMES,
  path: "**",
  severity: "error",
  description: "A field the API requires is missing: set it (the message names the expected type or values).",
};

export const fieldType: RuleInfo = {
  id: "field-type",
  kinds: KIND_NAMES,
  path: "**",
  severity: "error",
  description:
    "A value has the wrong JSON type: use the type the message names (string, boolean, integer, object or array).",
};

export const enumValue: RuleInfo = {
  id: "enum-value",
  kinds: ["Service", "ServiceRevision"],
  path: "**.backend.protocol | **.filter.phase | **.filter.failureMode | **.bindings[*].type",
  severity: "error",
  description:
    "backend.protocol, filter.phase, filter.failureMode and a binding's type take fixed values: use one of those the message lists.",
};

export const int32Range: RuleInfo = {
  id: "int32-range",
  kinds: ["Service", "ServiceRevision"],
  path: "spec.revisionHistoryLimit | **.backend.port",
  severity: "error",
  description: `Integers are int32: use a whole number from ${INT32_MIN} to ${INT32_MAX}.`,
};
