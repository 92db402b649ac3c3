import { isKnown } from "../sentinel";
import { child, objectRule, quote, SERVICE_KINDS } from "./helpers";

export const bundleCredentialsExclusive = objectRule(
  {
    id: "bundle-credentials-exclusive",
    kinds: SERVICE_KINDS,
    path: "spec.source.oci.credentialsRef | spec.source.git.build.output.credentialsRef | spec.bundle.credentialsRef",
    severity: "error",
    description:
      "A bundle reference carries inline credentials or a credentialsRef to stored ones, not both: remove credentialsRef to use the inline credentials, or remove credentials to use the referenced ones.",
  },
  ({ value }) =>
    isKnown(value.credentials) && isKnown(value.credentialsRef)
      ? [
          {
            at: ["credentialsRef"],
            reason: "FieldValueForbidden",
            fix: "only one of credentials or credentialsRef may be set; remove credentialsRef to use the inline credentials, or remove credentials to use the referenced ones",
          },
        ]
      : [],
);

export const bundleDigestPinned = objectRule(
  {
    id: "bundle-digest-pinned",
    kinds: ["Service"],
    path: "spec.source.oci.digest",
    severity: "warning",
    description:
      'A bundle referenced by tag alone is resolved when a revision is minted, so a re-push changes what runs: pin spec.source.oci with digest "sha256:<64 hex>".',
  },
  ({ value }) => {
    const oci = child(value, "oci");
    if (oci === undefined || oci.digest !== undefined || !isKnown(oci.tag)) return [];
    return [
      {
        at: ["oci", "digest"],
        reason: "FieldValueRequired",
        fix: `is not set, so tag ${quote(oci.tag)} is resolved at minting time and a re-push changes what runs; pin the bundle with digest "sha256:<64 hex>" (the serving path is digest-addressed)`,
      },
    ];
  },
);

export const revisionBundleDigest = objectRule(
  {
    id: "revision-bundle-digest",
    kinds: ["ServiceRevision"],
    path: "spec.bundle.digest",
    severity: "error",
    description:
      'A ServiceRevision runs an exact artifact: set spec.bundle.digest to the pushed bundle\'s "sha256:<64 hex>".',
  },
  ({ value }) => {
    const bundle = child(value, "bundle");
    if (bundle === undefined || bundle.digest !== undefined) return [];
    return [
      {
        at: ["bundle", "digest"],
        reason: "FieldValueRequired",
        fix: 'is required: a ServiceRevision runs an exact artifact; set digest to "sha256:<64 hex>" of the pushed bundle',
      },
    ];
  },
);
