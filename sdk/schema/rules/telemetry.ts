import { MANAGED_PROVIDER } from "../enums";
import { isKnown } from "../sentinel";
import { child, objectRule, quote } from "./helpers";

// "Managed" proxies are the ones the platform hosts: provider "cloud" (the default). Any other provider
// value is a proxy the user runs, which brings its own collector but cannot use the cloud-side sinks.

export const thirdPartySinksCloudOnly = objectRule(
  {
    id: "third-party-sinks-cloud-only",
    kinds: ["Proxy"],
    path: "spec.telemetry.thirdPartySinks",
    severity: "warning",
    description: `telemetry.thirdPartySinks only takes effect on cloud proxies (provider "${MANAGED_PROVIDER}").`,
  },
  ({ value }) => {
    const telemetry = child(value, "telemetry");
    if (
      !isKnown(value.provider) ||
      value.provider === MANAGED_PROVIDER ||
      !isKnown(telemetry?.thirdPartySinks)
    ) {
      return [];
    }
    return [
      {
        at: ["telemetry", "thirdPartySinks"],
        reason: "FieldValueInvalid",
        fix: `has no effect for provider ${quote(value.provider)}: third-party sinks work only on cloud proxies; remove it, or set provider to "${MANAGED_PROVIDER}" (on your own proxies, export through otelCollectorConfig)`,
      },
    ];
  },
);

export const otelCollectorUnmanagedOnly = objectRule(
  {
    id: "otel-collector-unmanaged-only",
    kinds: ["Proxy"],
    path: "spec.telemetry.otelCollectorConfig",
    severity: "warning",
    description: `telemetry.otelCollectorConfig only takes effect on unmanaged proxies (provider other than "${MANAGED_PROVIDER}").`,
  },
  ({ value }) => {
    const telemetry = child(value, "telemetry");
    if (value.provider !== MANAGED_PROVIDER || !isKnown(telemetry?.otelCollectorConfig)) return [];
    return [
      {
        at: ["telemetry", "otelCollectorConfig"],
        reason: "FieldValueInvalid",
        fix: `has no effect on a managed proxy (provider "${MANAGED_PROVIDER}", the default): the platform runs its collector; remove it and use thirdPartySinks, or set provider to where you run the proxy`,
      },
    ];
  },
);
