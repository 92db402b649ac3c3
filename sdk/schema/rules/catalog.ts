import type { RuleInfo } from "../violation";
import { backendFilterExclusive, backendPortIgnored, backendPortRequired } from "./backend";
import { bindingTypeMatch } from "./bindings";
import { bundleCredentialsExclusive, bundleDigestPinned, revisionBundleDigest } from "./bundle";
import { revisionSpecImmutable, serviceModeImmutable } from "./changes";
import { passwordPlaintext, passwordPrecedence } from "./credentials";
import { drainMinimum } from "./drain";
import { egressExclusive } from "./egress";
import {
  digestFormat,
  dns1123Name,
  durationFormat,
  keyDataBase64,
  otelEndpointUrl,
  quantityFormat,
  repoFormat,
  tagFormat,
} from "./formats";
import {
  buildCommandPullRequests,
  buildOutputUnpinned,
  gitFileUrl,
  previewTtl,
  pullRequestPreviews,
} from "./git";
import { backendPortRange, revisionHistoryRange } from "./ranges";
import { revisionBundleRequired, serviceRequiredFields } from "./required";
import { revisionHistoryMinimum } from "./revision-history";
import { sourceExactlyOne } from "./source";
import { enumValue, fieldType, int32Range, requiredField, unknownField } from "./structural";
import { otelCollectorUnmanagedOnly, thirdPartySinksCloudOnly } from "./telemetry";
import { uniqueNamesInfo } from "./unique-names";

/**
 * Every rule, in the order of the rules table (docs/policy-pack.md): section 7, then the field rules of
 * section 2 and DESIGN.md, then warnings, then the rules about updates (validateUpdate).
 */
export const RULES: readonly RuleInfo[] = Object.freeze([
  egressExclusive.info,
  bundleCredentialsExclusive.info,
  drainMinimum.info,
  sourceExactlyOne.info,
  serviceRequiredFields.info,
  revisionBundleRequired.info,
  revisionBundleDigest.info,
  buildOutputUnpinned.info,
  unknownField,
  requiredField,
  fieldType,
  enumValue,
  int32Range,
  backendPortRange.info,
  revisionHistoryRange.info,
  durationFormat.info,
  digestFormat.info,
  repoFormat.info,
  tagFormat.info,
  dns1123Name.info,
  otelEndpointUrl.info,
  gitFileUrl.info,
  quantityFormat.info,
  keyDataBase64.info,
  backendFilterExclusive.info,
  backendPortRequired.info,
  bindingTypeMatch.info,
  uniqueNamesInfo,
  bundleDigestPinned.info,
  previewTtl.info,
  pullRequestPreviews.info,
  buildCommandPullRequests.info,
  passwordPlaintext.info,
  passwordPrecedence.info,
  thirdPartySinksCloudOnly.info,
  otelCollectorUnmanagedOnly.info,
  backendPortIgnored.info,
  revisionHistoryMinimum.info,
  serviceModeImmutable.info,
  revisionSpecImmutable.info,
]);

export const RULE_INFOS_BY_ID: ReadonlyMap<string, RuleInfo> = new Map(RULES.map((rule) => [rule.id, rule]));
