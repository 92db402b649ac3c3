import { isUnknown, MANAGED_PROVIDER } from "../../sdk/schema";
import { FIELD_DEFAULTS } from "../../sdk/schema/field-defaults";
import { isRecord } from "../../sdk/shared/records";
import { valueAt } from "../resources";
import { organisationPolicy } from "./organisation-policy";

/** The third-party sinks that export a cloud proxy's telemetry: the vendors' keys and OpenTelemetry sinks. */
function hasThirdPartySink(sinks: Record<string, unknown>): boolean | undefined {
  const values = Object.values(sinks);
  if (values.some(isUnknown)) return undefined;
  return values.some((value) =>
    Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null,
  );
}

/**
 * Whether the proxy exports telemetry anywhere: a cloud proxy through thirdPartySinks (the platform runs the
 * collector), any other through its own collector's otelCollectorConfig; undefined while that is unknown.
 */
function exportsTelemetry(spec: Record<string, unknown>): boolean | undefined {
  const provider = spec.provider ?? FIELD_DEFAULTS.proxyProvider;
  const telemetry = spec.telemetry;
  if (isUnknown(provider) || isUnknown(telemetry)) return undefined;
  if (!isRecord(telemetry)) return false;
  if (provider !== MANAGED_PROVIDER) {
    if (isUnknown(telemetry.otelCollectorConfig)) return undefined;
    return telemetry.otelCollectorConfig !== undefined;
  }
  const sinks = telemetry.thirdPartySinks;
  if (isUnknown(sinks)) return undefined;
  return isRecord(sinks) ? hasThirdPartySink(sinks) : false;
}

export const proxyTelemetryRequired = organisationPolicy<Record<string, never>>({
  name: "proxy-telemetry-required",
  description:
    "Every Proxy exports its telemetry to a sink the organisation watches (thirdPartySinks on a cloud proxy, otelCollectorConfig on one you run), so its traffic can be monitored and investigated.",
  kinds: ["Proxy"],
  configSchema: { properties: {} },
  severity: "medium",
  fix: "Export the Proxy's telemetry: thirdPartySinks on a cloud proxy, otelCollectorConfig on one you run.",
  remediation: "none: which sink to export to, and with which credentials, only the author knows",
  check: (_kind, props) => {
    const spec = valueAt(props, ["spec"]);
    if (!isRecord(spec) || exportsTelemetry(spec) !== false) return [];
    const provider = spec.provider ?? FIELD_DEFAULTS.proxyProvider;
    return provider === MANAGED_PROVIDER
      ? [
          `spec.telemetry.thirdPartySinks: a cloud proxy with no telemetry sink exports its logs and traces nowhere the organisation watches; add an OpenTelemetry sink (openTelemetrySinks) or a vendor's key`,
        ]
      : [
          `spec.telemetry.otelCollectorConfig: a proxy on provider ${JSON.stringify(provider)} with no collector configuration exports no telemetry; set otelCollectorConfig to your collector's configuration object`,
        ];
  },
});
