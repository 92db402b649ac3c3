import { isUnknown } from "../sentinel";
import { objectRule } from "./helpers";

const VARIANTS = ["oci", "git"] as const;

export const sourceExactlyOne = objectRule(
  {
    id: "source-exactly-one",
    kinds: ["Service"],
    path: "spec.source",
    severity: "error",
    description:
      "spec.source sets exactly one of oci (a pushed bundle) or git (a build pipeline): add the one you use, or remove the other.",
  },
  ({ value }) => {
    // An unknown variant may still resolve to absent, so the count is only decided once all are known.
    if (VARIANTS.some((variant) => isUnknown(value[variant]))) return [];
    const set = VARIANTS.filter((variant) => value[variant] !== undefined && value[variant] !== null);
    if (set.length === 0) {
      return [
        {
          at: [],
          reason: "FieldValueRequired",
          fix: "set exactly one of oci (a pushed OCI bundle) or git (a git/CI build pipeline)",
        },
      ];
    }
    if (set.length > 1) {
      return [
        {
          at: [],
          reason: "FieldValueForbidden",
          fix: "oci and git are both set; keep exactly one: oci for a pushed bundle, git for a build pipeline",
        },
      ];
    }
    return [];
  },
);
