import { isKnown } from "../sentinel";
import { objectRule, SERVICE_KINDS } from "./helpers";

export const passwordPlaintext = objectRule(
  {
    id: "password-plaintext",
    kinds: SERVICE_KINDS,
    path: "**.credentials.password",
    severity: "warning",
    description:
      "password is a write-only plain-text field; passwordData is preferred when authoring programmatically.",
  },
  ({ value }) =>
    isKnown(value.password) && value.passwordData === undefined
      ? [
          {
            at: ["password"],
            reason: "FieldValueInvalid",
            fix: "is write-only plain text and never read back; set passwordData (the raw password) instead, as a secret",
          },
        ]
      : [],
);

export const passwordPrecedence = objectRule(
  {
    id: "password-precedence",
    kinds: SERVICE_KINDS,
    path: "**.credentials.password",
    severity: "warning",
    description: "When password and passwordData are both set, passwordData wins and password is ignored.",
  },
  ({ value }) =>
    isKnown(value.password) && isKnown(value.passwordData)
      ? [
          {
            at: ["password"],
            reason: "FieldValueInvalid",
            fix: "is ignored because passwordData is also set and takes precedence; remove password",
          },
        ]
      : [],
);
