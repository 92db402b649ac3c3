import { cloudProxy, DIGEST, gitService, ociService, revision } from "../examples";
import { build, config, git, invalid, oci, proxy, type RuleCase, rev, service, valid } from "./case";

/** The rules of section 7 of the API spec. */
export const SECTION_7_CASES: RuleCase[] = [
  invalid(
    "egress-exclusive",
    "disabled egress naming a gateway",
    "Service",
    service([...config, "egress"], { disabled: true, gatewayRef: "gw" }),
    "spec.template.spec.egress.gatewayRef",
  ),
  invalid(
    "egress-exclusive",
    "the same on a revision",
    "ServiceRevision",
    rev(["egress"], { disabled: true, gatewayRef: "gw" }),
    "spec.egress.gatewayRef",
  ),
  valid(
    "egress-exclusive",
    "disabled egress with an empty gatewayRef",
    "Service",
    service([...config, "egress"], { disabled: true, gatewayRef: "" }),
  ),
  valid("egress-exclusive", "enabled egress naming a gateway", "Service", ociService),

  invalid(
    "bundle-credentials-exclusive",
    "an oci source with both",
    "Service",
    service([...oci, "credentialsRef"], { group: "g", name: "n", namespace: "ns" }),
    "spec.source.oci.credentialsRef",
  ),
  invalid(
    "bundle-credentials-exclusive",
    "a build output with both",
    "Service",
    git([...build, "output", "credentials"], { username: "ci", passwordData: "pw" }),
    "spec.source.git.build.output.credentialsRef",
  ),
  invalid(
    "bundle-credentials-exclusive",
    "a revision bundle with both",
    "ServiceRevision",
    rev(["bundle"], {
      repo: "r.example.dev/a",
      digest: DIGEST,
      credentials: {},
      credentialsRef: { group: "g", name: "n", namespace: "ns" },
    }),
    "spec.bundle.credentialsRef",
  ),
  valid("bundle-credentials-exclusive", "only a credentialsRef", "Service", gitService),

  invalid(
    "drain-minimum",
    "minimumDrainTime below drainTimeout",
    "Proxy",
    proxy(["shutdown"], { drainTimeout: "1m", minimumDrainTime: "30s" }),
    "spec.shutdown.minimumDrainTime",
  ),
  invalid(
    "drain-minimum",
    "a drainTimeout above the 30s default minimum",
    "Proxy",
    proxy(["shutdown"], { drainTimeout: "2m" }),
    "spec.shutdown.minimumDrainTime",
  ),
  valid(
    "drain-minimum",
    "equal values written differently",
    "Proxy",
    proxy(["shutdown"], { drainTimeout: "1m30s", minimumDrainTime: "90s" }),
  ),
  valid("drain-minimum", "a longer minimum", "Proxy", cloudProxy),
  valid("drain-minimum", "both defaulted", "Proxy", proxy(["shutdown"], undefined)),

  invalid("source-exactly-one", "neither variant", "Service", service(["source"], {}), "spec.source"),
  invalid(
    "source-exactly-one",
    "both variants",
    "Service",
    service(["source", "git"], gitService.source.git),
    "spec.source",
  ),
  valid("source-exactly-one", "only oci", "Service", ociService),
  valid("source-exactly-one", "only git", "Service", gitService),

  invalid("service-required-fields", "no source", "Service", service(["source"], undefined), "spec.source"),
  invalid(
    "service-required-fields",
    "no template",
    "Service",
    service(["template"], undefined),
    "spec.template",
  ),
  invalid(
    "service-required-fields",
    "no template.spec",
    "Service",
    service(["template", "spec"], undefined),
    "spec.template.spec",
  ),
  invalid(
    "service-required-fields",
    "a runtime without compatibilityDate",
    "Service",
    service([...config, "runtime", "compatibilityDate"], undefined),
    "spec.template.spec.runtime.compatibilityDate",
  ),
  valid("service-required-fields", "a complete Service", "Service", ociService),
  invalid(
    "service-required-fields",
    "no runtime at all",
    "Service",
    service([...config, "runtime"], undefined),
    "spec.template.spec.runtime.compatibilityDate",
  ),
  invalid(
    "service-required-fields",
    "an empty template.spec",
    "Service",
    service([...config], {}),
    "spec.template.spec.runtime.compatibilityDate",
  ),
  valid(
    "service-required-fields",
    "a runtime with only compatibilityDate",
    "Service",
    service([...config, "runtime"], { compatibilityDate: "2026-01-01" }),
  ),
  valid(
    "service-required-fields",
    "a revision without runtime",
    "ServiceRevision",
    rev(["runtime"], undefined),
  ),

  invalid(
    "revision-bundle-required",
    "no bundle",
    "ServiceRevision",
    rev(["bundle"], undefined),
    "spec.bundle",
  ),
  valid("revision-bundle-required", "a bundle", "ServiceRevision", revision),

  invalid(
    "revision-bundle-digest",
    "a tag-only bundle",
    "ServiceRevision",
    rev(["bundle", "digest"], undefined),
    "spec.bundle.digest",
  ),
  valid("revision-bundle-digest", "a pinned bundle", "ServiceRevision", revision),
];
