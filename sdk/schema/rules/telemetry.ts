import { MANAGED_PROVIDER } from "../enums";
import { FIELD_DEFAULTS } from "../field-defaults";
import { isKnown } from "../sentinel";
import { child, objectRule, quote } from "./helpers";

// "Managed" proxies are the ones the platform hosts: provider "cloud". Any other provider value is a proxy
// the user runs, which brings its own collector but cannot use the cloud-side sinks.

/** `provider "cloud"`, and whether that is the default (the one declaration the schema reads too). */
const managed = () =>
  `provider "${MANAGED_PROVIDER}"${FIELD_DEFAULTS.proxyProvider === MANAGED_PROVIDER ? ", the default" : ""}`;

export const thirdPartySinksCloudOnly = objectRule(
  {
    id: "third-party-sinks-cloud-only",
    kinds: ["Proxy"],
    path: "spec.telemetry.thirdPartySinks",
    severity: "warning",
    description: `telemetry.thirdPartySinks only works on cloud proxies (provider "${MANAGED_PROVIDER}"): remove it, or set provider to "${MANAGED_PROVIDER}"; your own proxies export through otelCollectorConfig.`,
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
    get description() {
      return `telemetry.otelCollectorConfig has no effect on a managed proxy (${managed()}), where the platform runs the collector: remove it and use thirdPartySinks, or set provider to where you run the proxy.`;
    },
  },
  ({ value }) => {
    const telemetry = child(value, "telemetry");
    if (value.provider !== MANAGED_PROVIDER || !isKnown(telemetry?.otelCollectorConfig)) return [];
    return [
      {
        at: ["telemetry", "otelCollectorConfig"],
        reason: "FieldValueInvalid",
        fix: `has no effect on a managed proxy (${managed()}): the platform runs its collector; remove it and use thirdPartySinks, or set provider to where you run the proxy`,
      },
    ];
  },
);
