import { isKnown } from "../sentinel";
import { objectRule, SERVICE_KINDS } from "./helpers";

export const passwordPlaintext = objectRule(
  {
    id: "password-plaintext",
    kinds: SERVICE_KINDS,
    path: "**.credentials.password",
    severity: "warning",
    description:
      "credentials.password is write-only plain text, never read back: set passwordData (the raw password) instead, as a secret.",
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
    description:
      "credentials.password is ignored when passwordData is also set, which takes precedence: remove password.",
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
