import { z } from "zod";
import { EnvVarSchema } from "./common";
import { BACKEND_PROTOCOLS, BINDING_TYPES, FAILURE_MODES, FILTER_PHASES } from "./enums";
import { DurationSchema, ObjectNameRefSchema, PortSchema, QuantitySchema } from "./field-types";
import { objectType, type TypeMeta } from "./meta";
import { backendFilterExclusive, backendPortIgnored, backendPortRequired } from "./rules/backend";
import { bindingTypeMatch } from "./rules/bindings";
import { egressExclusive } from "./rules/egress";
import { uniqueNames } from "./rules/unique-names";

/** ServiceConfigSpec: the serving configuration a Service templates and a ServiceRevision pins. */

export const BackendConfigSchema = objectType(
  "BackendConfig",
  {
    /** Required for tcp and udp; ignored for http1 and http2. */
    port: PortSchema.optional(),
    protocol: z.enum(BACKEND_PROTOCOLS).default("http1"),
  },
  { rules: [backendPortRequired, backendPortIgnored] },
);

export const KVBindingSchema = objectType("KVBinding", {
  /** Name of the key-value store partition (a store name, not a cluster namespace). */
  namespace: z.string(),
});

export const SecretBindingSchema = objectType("SecretBinding", {
  /** Key within the store's values map. */
  key: z.string(),
  /** Name of the secret store (cluster-scoped, same project). */
  store: z.string(),
});

export const ServiceBindingSchema = objectType("ServiceBinding", {
  serviceRef: z.string(),
});

export const BindingSchema = objectType(
  "Binding",
  {
    kv: KVBindingSchema.optional(),
    /** Identifier exposed to service code as env.<name>. */
    name: z.string(),
    secret: SecretBindingSchema.optional(),
    service: ServiceBindingSchema.optional(),
    /** Names the one sub-object that is set. */
    type: z.enum(BINDING_TYPES),
  },
  { rules: [bindingTypeMatch] },
);

export const ServiceEgressSchema = objectType(
  "ServiceEgress",
  {
    /** Hard-denies all egress; exclusive with a non-empty gatewayRef. */
    disabled: z.boolean().optional(),
    /** Egress gateway name; empty means the project "default" gateway. Not checked for existence. */
    gatewayRef: ObjectNameRefSchema.optional(),
  },
  { rules: [egressExclusive] },
);

export const FilterConfigSchema = objectType("FilterConfig", {
  failureMode: z.enum(FAILURE_MODES).default("failClosed"),
  phase: z.enum(FILTER_PHASES).default("request"),
});

export const ServiceLimitsSchema = objectType("ServiceLimits", {
  /** Per-request CPU budget, e.g. "50ms". */
  cpuTime: DurationSchema.optional(),
  /** Memory cap as a quantity, e.g. "128Mi". */
  memory: QuantitySchema.optional(),
});

export const ServiceRuntimeSchema = objectType("ServiceRuntime", {
  /** Required by the worker runtime; pinned per revision. */
  compatibilityDate: z.string(),
  compatibilityFlags: z.array(z.string()).optional(),
  limits: ServiceLimitsSchema.optional(),
  /** Wall-clock request timeout. */
  timeout: DurationSchema.default("30s"),
});

/** The fields, shared by ServiceConfigSpec and ServiceRevisionSpec (which adds bundle). */
export const serviceConfigFields = {
  /** Backend mode; the default when neither backend nor filter is set. Exclusive with filter. */
  backend: BackendConfigSchema.optional(),
  bindings: z.array(BindingSchema).optional(),
  /** Absent means the project "default" egress gateway. */
  egress: ServiceEgressSchema.optional(),
  env: z.array(EnvVarSchema).optional(),
  /** Filter mode. Exclusive with backend. */
  filter: FilterConfigSchema.optional(),
  runtime: ServiceRuntimeSchema.optional(),
};

/** Backend mode is the default: neither backend nor filter set means backend with its defaults. */
function defaultToBackendMode(config: Record<string, unknown>): Record<string, unknown> {
  return config.backend === undefined && config.filter === undefined
    ? { ...config, backend: BackendConfigSchema.parse({}) }
    : config;
}

/** The defaults and rules of the shared fields, for every type built from them. */
export const serviceConfigMeta = {
  fill: defaultToBackendMode,
  rules: [backendFilterExclusive, uniqueNames("bindings", "env")],
} satisfies Omit<TypeMeta, "typeName">;

/**
 * A Service's template spec: the shared fields, with runtime required, since section 7 requires
 * runtime.compatibilityDate on every Service (a worker cannot run without it). A ServiceRevision keeps
 * runtime optional, as the field table has it: the controller mints one from a valid Service.
 */
export const ServiceConfigSpecSchema = objectType(
  "ServiceConfigSpec",
  { ...serviceConfigFields, runtime: ServiceRuntimeSchema },
  serviceConfigMeta,
);

export type BackendConfig = z.output<typeof BackendConfigSchema>;
export type BackendConfigInput = z.input<typeof BackendConfigSchema>;
export type KVBinding = z.output<typeof KVBindingSchema>;
export type KVBindingInput = z.input<typeof KVBindingSchema>;
export type SecretBinding = z.output<typeof SecretBindingSchema>;
export type SecretBindingInput = z.input<typeof SecretBindingSchema>;
export type ServiceBinding = z.output<typeof ServiceBindingSchema>;
export type ServiceBindingInput = z.input<typeof ServiceBindingSchema>;
export type Binding = z.output<typeof BindingSchema>;
export type BindingInput = z.input<typeof BindingSchema>;
export type ServiceEgress = z.output<typeof ServiceEgressSchema>;
export type ServiceEgressInput = z.input<typeof ServiceEgressSchema>;
export type FilterConfig = z.output<typeof FilterConfigSchema>;
export type FilterConfigInput = z.input<typeof FilterConfigSchema>;
export type ServiceLimits = z.output<typeof ServiceLimitsSchema>;
export type ServiceLimitsInput = z.input<typeof ServiceLimitsSchema>;
export type ServiceRuntime = z.output<typeof ServiceRuntimeSchema>;
export type ServiceRuntimeInput = z.input<typeof ServiceRuntimeSchema>;
export type ServiceConfigSpec = z.output<typeof ServiceConfigSpecSchema>;
export type ServiceConfigSpecInput = z.input<typeof ServiceConfigSpecSchema>;
