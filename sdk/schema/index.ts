/**
 * The one schema of the Proxy and Compute Service Configuration API: fields (zod), defaults, rules and secret
 * fields of Proxy, Service and ServiceRevision. The provider, the policy pack and the server import it from
 * here; nothing else declares a field, a default or a rule.
 *
 * Types: `XInput` (z.input) is what users author, defaults optional; `X` (z.output) has the defaults present.
 */

import "../shared/node-version"; // first: fails on a Node older than the package needs, before anything loads

export * from "./common";
export { applyDefaults } from "./defaults";
export { DURATION_PATTERN, parseDuration } from "./duration";
export { BACKEND_PROTOCOLS, BINDING_TYPES, FAILURE_MODES, FILTER_PHASES, MANAGED_PROVIDER } from "./enums";
export { PROXY_DRAIN_FINALIZER } from "./finalizers";
export { KIND_NAMES, KINDS, type KindInfo, type KindName } from "./kinds";
export {
  isObjectName,
  keyProblem,
  LABEL_KEY_SCHEMA,
  LABEL_VALUE_SCHEMA,
  labelValueProblem,
  MAX_NAME_LENGTH,
  metadataIssues,
  metadataProblems,
  nameProblem,
} from "./metadata";
export * from "./proxy";
export { RULES } from "./rules/catalog";
export {
  joinSecrets,
  SECRET_ANNOTATION,
  SECRET_TYPE,
  SECRETS_NAMESPACE,
  type SecretValues,
  type SplitSpec,
  sameValues,
  secretNameOf,
  secretValuesOf,
  splitSecrets,
  withoutSecretName,
} from "./secret-values";
export {
  isPlaceholder,
  moveWriteOnlyPasswords,
  PLACEHOLDERS,
  redactSecrets,
  SECRET_FIELDS,
  type SecretField,
  secretPaths,
  secretTree,
} from "./secrets";
export { isUnknown, UNKNOWN } from "./sentinel";
export * from "./service";
export {
  type BackendConfig,
  type BackendConfigInput,
  BackendConfigSchema,
  type Binding,
  type BindingInput,
  BindingSchema,
  type FilterConfig,
  type FilterConfigInput,
  FilterConfigSchema,
  type KVBinding,
  type KVBindingInput,
  KVBindingSchema,
  type SecretBinding,
  type SecretBindingInput,
  SecretBindingSchema,
  type ServiceBinding,
  type ServiceBindingInput,
  ServiceBindingSchema,
  type ServiceConfigSpec,
  type ServiceConfigSpecInput,
  ServiceConfigSpecSchema,
  type ServiceEgress,
  type ServiceEgressInput,
  ServiceEgressSchema,
  type ServiceLimits,
  type ServiceLimitsInput,
  ServiceLimitsSchema,
  type ServiceRuntime,
  type ServiceRuntimeInput,
  ServiceRuntimeSchema,
} from "./service-config";
export * from "./service-revision";
export * from "./status";
export {
  type ConcernState,
  isStalling,
  PROXY_READY_MESSAGE,
  proxyReadiness,
  type ReadinessState,
  STALLING_REASONS,
  serviceReadiness,
  stalledByEgressOnly,
} from "./status-readiness";
export { StatusSchema, statusProblem } from "./status-schema";
export { findUnknownFields, stripUnknownFields } from "./unknown-fields";
export { type ValidateOptions, validateSpec, validateUpdate } from "./validate";
export type { CauseReason, RuleInfo, Severity, Violation } from "./violation";
export { formatPath, type PathSegment, parsePath } from "./violation";
