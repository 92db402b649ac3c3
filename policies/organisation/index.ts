import { allowedSources } from "./allowed-sources";
import { compatibilityDateMaxAgePolicy } from "./compatibility-date-max-age";
import type { OrganisationPolicy } from "./organisation-policy";
import { previewTtlMax } from "./preview-ttl-max";
import { proxyTelemetryRequired } from "./proxy-telemetry-required";
import { requiredLabels } from "./required-labels";

export type { OrganisationPolicy } from "./organisation-policy";

/**
 * The organisation policies: rules a platform team states for its own organisation, with settings, each
 * `disabled` until a policy config turns it on. Their names and settings are a public interface: a team's
 * config file must read the same in every release.
 */
export const ORGANISATION_POLICIES: readonly OrganisationPolicy[] = [
  allowedSources,
  requiredLabels,
  compatibilityDateMaxAgePolicy,
  previewTtlMax,
  proxyTelemetryRequired,
];
