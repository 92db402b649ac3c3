import { z } from "zod";
import { FIELD_DEFAULTS } from "./field-defaults";
import { Base64Schema, DurationSchema, HttpUrlSchema, StringMapSchema } from "./field-types";
import { objectType } from "./meta";
import { drainMinimum } from "./rules/drain";
import { otelCollectorUnmanagedOnly, thirdPartySinksCloudOnly } from "./rules/telemetry";

/** Proxy (core.example.dev/v1alpha2), API-SPEC section 2.1. */

/** The spec's "object (free-form map)". */
const FreeFormObjectSchema = z.record(z.string(), z.unknown());

export const ShutdownConfigSchema = objectType(
  "ShutdownConfig",
  {
    /** Time to wait before terminating the proxy. */
    drainTimeout: DurationSchema.default(FIELD_DEFAULTS.drainTimeout),
    /** Minimum time to wait before terminating; not less than drainTimeout. */
    minimumDrainTime: DurationSchema.default(FIELD_DEFAULTS.minimumDrainTime),
  },
  { rules: [drainMinimum] },
);

export const ProxyAccessLogsSchema = objectType("ProxyAccessLogs", {
  /** Extra fields added to the default access logs; values may use access-log command operators. */
  json: FreeFormObjectSchema.optional(),
});

export const ProxyContentLogsSchema = objectType("ProxyContentLogs", {
  requestBodyEnabled: z.boolean(),
  responseBodyEnabled: z.boolean(),
});

export const LocalObjectReferenceSchema = objectType("LocalObjectReference", {
  group: z.string(),
  name: z.string(),
});

/** An API key; both forms are secrets (placeholder "<API_KEY>"). */
export const APIKeySchema = objectType("APIKey", {
  key: z.string().optional(),
  /** The base64-encoded API key. */
  keyData: Base64Schema.optional(),
});

export const OpenTelemetrySinkSchema = objectType("OpenTelemetrySink", {
  /** OTLP over HTTP endpoint, an http(s) URL. */
  endpoint: HttpUrlSchema,
  headers: StringMapSchema.optional(),
  compression: z.string().optional(),
});

export const ThirdPartySinksSchema = objectType("ThirdPartySinks", {
  vendorAlphaLogs: APIKeySchema.optional(),
  vendorAlphaTraces: APIKeySchema.optional(),
  vendorBetaLogs: APIKeySchema.optional(),
  vendorBetaTraces: APIKeySchema.optional(),
  openTelemetrySinks: z.array(OpenTelemetrySinkSchema).optional(),
});

export const ProxyTracingSchema = objectType("ProxyTracing", {
  enabled: z.boolean(),
  tags: FreeFormObjectSchema.optional(),
});

/** The type name is spelled this way in the API. */
export const ProxyTelementrySchema = objectType("ProxyTelementry", {
  /** Access logs cannot be disabled. */
  accessLogs: ProxyAccessLogsSchema.optional(),
  contentLogs: ProxyContentLogsSchema.optional(),
  /** Only for unmanaged proxies (provider other than "cloud"). */
  otelCollectorConfig: LocalObjectReferenceSchema.optional(),
  /** Only for cloud proxies. */
  thirdPartySinks: ThirdPartySinksSchema.optional(),
  tracing: ProxyTracingSchema.optional(),
});

export const ProxySpecSchema = objectType(
  "ProxySpec",
  {
    /** Infrastructure provider where the proxy is deployed; "cloud" is the managed offering. */
    provider: z.string().default(FIELD_DEFAULTS.proxyProvider),
    // Present by default so that the drain defaults are always visible in outputs.
    shutdown: ShutdownConfigSchema.prefault({}),
    telemetry: ProxyTelementrySchema.optional(),
  },
  { rules: [thirdPartySinksCloudOnly, otelCollectorUnmanagedOnly] },
);

export type ShutdownConfig = z.output<typeof ShutdownConfigSchema>;
export type ShutdownConfigInput = z.input<typeof ShutdownConfigSchema>;
export type ProxyAccessLogs = z.output<typeof ProxyAccessLogsSchema>;
export type ProxyAccessLogsInput = z.input<typeof ProxyAccessLogsSchema>;
export type ProxyContentLogs = z.output<typeof ProxyContentLogsSchema>;
export type ProxyContentLogsInput = z.input<typeof ProxyContentLogsSchema>;
export type LocalObjectReference = z.output<typeof LocalObjectReferenceSchema>;
export type LocalObjectReferenceInput = z.input<typeof LocalObjectReferenceSchema>;
export type APIKey = z.output<typeof APIKeySchema>;
export type APIKeyInput = z.input<typeof APIKeySchema>;
export type OpenTelemetrySink = z.output<typeof OpenTelemetrySinkSchema>;
export type OpenTelemetrySinkInput = z.input<typeof OpenTelemetrySinkSchema>;
export type ThirdPartySinks = z.output<typeof ThirdPartySinksSchema>;
export type ThirdPartySinksInput = z.input<typeof ThirdPartySinksSchema>;
export type ProxyTracing = z.output<typeof ProxyTracingSchema>;
export type ProxyTracingInput = z.input<typeof ProxyTracingSchema>;
export type ProxyTelementry = z.output<typeof ProxyTelementrySchema>;
export type ProxyTelementryInput = z.input<typeof ProxyTelementrySchema>;
export type ProxySpec = z.output<typeof ProxySpecSchema>;
export type ProxySpecInput = z.input<typeof ProxySpecSchema>;
