import type { z } from "zod";
import { BundleRefSchema, EnvVarSchema, OCICredentialsRefSchema, OCICredentialsSchema } from "./common";
import type { KindName } from "./kinds";
import {
  APIKeySchema,
  LocalObjectReferenceSchema,
  OpenTelemetrySinkSchema,
  ProxyAccessLogsSchema,
  ProxyContentLogsSchema,
  ProxySpecSchema,
  ProxyTelementrySchema,
  ProxyTracingSchema,
  ShutdownConfigSchema,
  ThirdPartySinksSchema,
} from "./proxy";
import {
  BuildConfigSchema,
  GitSourceSchema,
  PreviewPolicySchema,
  ServiceSourceSchema,
  ServiceSpecSchema,
  ServiceTemplateMetadataSchema,
  ServiceTemplateSpecSchema,
  TriggersSchema,
} from "./service";
import {
  BackendConfigSchema,
  BindingSchema,
  FilterConfigSchema,
  KVBindingSchema,
  SecretBindingSchema,
  ServiceBindingSchema,
  ServiceConfigSpecSchema,
  ServiceEgressSchema,
  ServiceLimitsSchema,
  ServiceRuntimeSchema,
} from "./service-config";
import { ServiceRevisionSpecSchema } from "./service-revision";

/**
 * What each type and field of the API is for, in words (API-SPEC section 2 and DESIGN.md), for the OpenAPI
 * documents (`kubectl explain`). Defaults, allowed values, required fields and the rules that check a value
 * are not written here: the OpenAPI generator reads them from the schema. The table of each type must name
 * every field of its zod shape and no other (the compiler checks it), so a field cannot be added without
 * its words.
 */

export interface TypeDocs {
  description: string;
  fields: Readonly<Record<string, string>>;
}

const DOCS = new Map<z.core.$ZodType, TypeDocs>();

type FieldDocs<S> = S extends { shape: infer Shape } ? { readonly [K in keyof Shape]: string } : never;

function document<S extends z.core.$ZodType & { shape: unknown }>(
  schema: S,
  description: string,
  fields: FieldDocs<S>,
): void {
  DOCS.set(schema, { description, fields: fields as Readonly<Record<string, string>> });
}

/** The words of an object type of the schema, or undefined for a schema that is not one. */
export function typeDocs(schema: z.core.$ZodType): TypeDocs | undefined {
  return DOCS.get(schema);
}

/** What each kind is, for its top-level schema. */
export const KIND_DESCRIPTIONS: Readonly<Record<KindName, string>> = Object.freeze({
  Proxy:
    "A proxy deployment: where it runs, how it shuts down, and what telemetry it produces. Cluster-scoped.",
  Service:
    "A deployable code bundle: the source of the bundle (a pushed OCI artifact or a git/CI pipeline) and a template for the serving configuration. A change to the template, or a new bundle digest, mints a ServiceRevision. Cluster-scoped.",
  ServiceRevision:
    "An immutable, digest-pinned serving configuration, minted by the controller from a Service. Cluster-scoped.",
});

// Proxy (core.example.dev/v1alpha2), API-SPEC 2.1.

document(ProxySpecSchema, "The desired state of a Proxy.", {
  provider:
    'Infrastructure provider where the proxy is deployed. "cloud" is the managed offering; any other value is a self-managed proxy.',
  shutdown: "Shutdown behaviour.",
  telemetry: "Telemetry configuration.",
});

document(ShutdownConfigSchema, "How the proxy shuts down.", {
  drainTimeout: "Time to wait before terminating the proxy.",
  minimumDrainTime:
    "Minimum time to wait before terminating. It lets downstream load balancers see the health-check status and drain the backend. It must not be less than drainTimeout.",
});

document(ProxyTelementrySchema, "Telemetry configuration (the type name is spelled this way in the API).", {
  accessLogs: "Access log handling. Access logs cannot be disabled.",
  contentLogs: "Request and response body content logging (taps). Disabled by default.",
  otelCollectorConfig:
    "Custom OpenTelemetry collector configuration. Only for unmanaged proxies (provider other than cloud). It must refer to a configuration object or secret object in the same namespace as the control component.",
  thirdPartySinks: "Third-party integrations. Only for cloud proxies.",
  tracing: "Tracing. Disabled by default.",
});

document(ProxyAccessLogsSchema, "Access log handling.", {
  json: "Optional extra fields added to the default access logs. Values may use the proxy's access-log command operators. Attempts to override default fields have no effect.",
});

document(ProxyContentLogsSchema, "Request and response body content logging.", {
  requestBodyEnabled: "Log request bodies.",
  responseBodyEnabled: "Log response bodies.",
});

document(LocalObjectReferenceSchema, "A reference to an object in the same namespace.", {
  group: "API group of the referenced object.",
  name: "Name of the referenced object.",
});

document(
  ThirdPartySinksSchema,
  "Third-party integrations. Each key is a secret: responses never echo it (placeholder <API_KEY>).",
  {
    vendorAlphaLogs: "API key for the first vendor's logs.",
    vendorAlphaTraces: "API key for the first vendor's traces.",
    vendorBetaLogs: "API key for the second vendor's logs.",
    vendorBetaTraces: "API key for the second vendor's traces.",
    openTelemetrySinks: "OpenTelemetry sinks.",
  },
);

document(APIKeySchema, "An API key; both forms are secrets, returned as <API_KEY>.", {
  key: "The API key.",
  keyData: "The base64-encoded API key.",
});

document(OpenTelemetrySinkSchema, "An OpenTelemetry sink, reached over OTLP/HTTP.", {
  endpoint: "The OTLP over HTTP endpoint, an http(s) URL.",
  headers: "Headers sent with every export.",
  compression: "Compression of the exported data.",
});

document(ProxyTracingSchema, "Tracing.", {
  enabled: "Enable tracing.",
  tags: "Additional tags added to traces.",
});

// Service and ServiceRevision (compute.example.dev/v1alpha1), API-SPEC 2.2 and 2.3.

document(ServiceSpecSchema, "The desired state of a Service.", {
  liveRevision:
    "Selects the target ServiceRevision by name. Empty means auto (the latest minted revision); set means pinned, for rollback or manual promotion. The named revision must still be retained under revisionHistoryLimit.",
  revisionHistoryLimit: "Number of revisions retained.",
  source:
    "Where the bundle comes from. Exactly one variant is set: oci or git. The resolved digest always lands in the minted revision's spec.bundle.",
  template:
    "Desired serving configuration for the next minted revision. Always user-owned. A change to it mints a ServiceRevision.",
});

document(ServiceSourceSchema, "Where the bundle comes from: exactly one of oci and git.", {
  git: "Git/CI pipeline (git model). Builds produce the digest and mint revisions.",
  oci: "Directly pushed OCI bundle (push model). The controller resolves its tag to a digest and mints a revision pinned to that digest.",
});

document(GitSourceSchema, "A git repository built by CI into bundles.", {
  build: "How the repository is built into a bundle.",
  credentialsRef: "Credentials for the repository.",
  previews: "Preview Services for non-production branches and pull requests.",
  triggers: "What starts a build.",
  url: "Git repository URL.",
});

document(BuildConfigSchema, "How a git source is built into a bundle.", {
  builder: "Builder image that produces the bundle.",
  command: "Overrides the builder's default build command.",
  env: "Environment variables of the build.",
  output: "Where built bundles are pushed. The per-build digest lands in the Build status.",
  rootDir: "Directory within the repository.",
});

document(PreviewPolicySchema, "Preview Services for branches and pull requests.", {
  enabled:
    "When true, ephemeral preview Services owned by this Service are spawned per non-production branch or pull request.",
  ttl: "Time after which idle previews are garbage-collected.",
});

document(TriggersSchema, "What starts a build.", {
  onPullRequest: "Enables preview builds for pull-request branches.",
  paths: "If set, restricts triggering to changes under these globs.",
  productionBranch: "Built and promoted on push.",
});

document(EnvVarSchema, "An environment variable.", {
  name: "The variable's name, unique within its list.",
  value: "The variable's value.",
});

document(BundleRefSchema, "An OCI artifact. A BundleRef with neither tag nor digest means the tag latest.", {
  credentials: "Registry credentials. Only one of credentials or credentialsRef may be set.",
  credentialsRef:
    "A reference to registry credentials. Only one of credentials or credentialsRef may be set.",
  digest: "Pins the exact artifact. Strongly preferred: the serving path is digest-addressed and immutable.",
  repo: "OCI repository.",
  tag: "Resolved to a digest by the controller when digest is unset.",
});

document(
  OCICredentialsSchema,
  "Registry credentials. Every value is a secret: responses carry placeholders and never the password.",
  {
    accessToken:
      "Registry bearer token, sent as-is in the Authorization Bearer header. It skips the token-service exchange. Returned as <ACCESS_TOKEN>.",
    password: "Write-only plain-text password. PasswordData is preferred when authoring programmatically.",
    passwordData:
      "Raw password bytes, not base64 of the password. Takes precedence over password when both are set. Returned as <PASSWORD_DATA>.",
    refreshToken:
      "OAuth2 refresh token exchanged with the registry's token service for access tokens. Returned as <REFRESH_TOKEN>.",
    username: "The registry user name.",
  },
);

document(OCICredentialsRefSchema, "A reference to registry credentials stored elsewhere.", {
  group: "API group of the credentials object.",
  name: "Name of the credentials object.",
  namespace: "Namespace of the credentials object.",
});

document(ServiceTemplateSpecSchema, "The serving configuration a Service mints revisions from.", {
  metadata: "Labels and annotations of the minted revisions.",
  spec: "The serving configuration.",
});

document(ServiceTemplateMetadataSchema, "Template metadata: labels and annotations only.", {
  annotations: "Annotations of the minted revisions.",
  labels: "Labels of the minted revisions.",
});

const serviceConfigFieldDocs = {
  backend:
    "Backend mode and settings. Backend mode is the default when neither backend nor filter is set. Exclusive with filter.",
  bindings: "Resources exposed to the service code, each under its name.",
  egress:
    "How outbound traffic is mediated. Absent means the project default egress gateway (egress on by default).",
  env: "Environment variables of the service code.",
  filter: "Filter mode and settings. Exclusive with backend.",
  runtime: "The worker runtime's settings.",
} as const;

document(
  ServiceConfigSpecSchema,
  "The serving configuration a Service templates (the same fields appear in ServiceRevisionSpec).",
  {
    ...serviceConfigFieldDocs,
    runtime:
      "The worker runtime's settings. Required on a Service: the worker cannot run without runtime.compatibilityDate.",
  },
);

document(
  ServiceRevisionSpecSchema,
  "The serving configuration of one revision, and the bundle it runs. Immutable.",
  {
    ...serviceConfigFieldDocs,
    bundle:
      "Resolved OCI artifact this revision runs. Always digest-pinned. Set by the controller when minting from spec.source; never user-authored.",
  },
);

document(BackendConfigSchema, "Backend mode: the service answers requests itself.", {
  port: "Meaningful only for protocols tcp and udp (required there). Ignored for http1 and http2.",
  protocol: "The protocol the backend speaks.",
});

document(BindingSchema, "A resource exposed to the service code; exactly the sub-object type names is set.", {
  kv: "A key-value store partition (type kv).",
  name: "Identifier exposed to service code as env.<name>; unique within the list.",
  secret: "A value of a secret store (type secret).",
  service: "Another Service (type service).",
  type: "Which sub-object carries the binding's settings.",
});

document(KVBindingSchema, "A key-value store binding.", {
  namespace: "Name of the key-value store partition. It is a store name, not a cluster namespace.",
});

document(SecretBindingSchema, "A secret store binding.", {
  key: "Key within the store's values map.",
  store: "Name of the secret store (cluster-scoped, same project).",
});

document(ServiceBindingSchema, "A binding to another Service.", {
  serviceRef: "Name of the Service.",
});

document(ServiceEgressSchema, "How outbound traffic is mediated.", {
  disabled:
    "When true, all egress is hard-denied: the runtime's global outbound is unset and the sandbox network stack resets any outbound attempt. Mutually exclusive with a non-empty gatewayRef.",
  gatewayRef:
    "Name of the egress gateway (same compute group) that mediates outbound traffic. Empty means the project default gateway. Existence is not validated at admission; a dangling reference appears as the condition EgressReady=False on Service status.",
});

document(FilterConfigSchema, "Filter mode: the service filters traffic to another backend.", {
  failureMode: "What happens to traffic when the filter fails.",
  phase: "Which side of the exchange the filter sees.",
});

document(ServiceRuntimeSchema, "The worker runtime's settings.", {
  compatibilityDate: "Required by the worker runtime; pinned per revision.",
  compatibilityFlags: "Runtime compatibility flags.",
  limits: "Resource limits per request.",
  timeout: "Wall-clock request timeout.",
});

document(ServiceLimitsSchema, "Resource limits per request.", {
  cpuTime: "Per-request CPU budget, for example a millisecond-scale duration.",
  memory: "Memory cap, in a quantity form such as a count of mebibytes.",
});
