import { type Client, createClient } from "../sdk/client";
import {
  apiAddressConfigured,
  booleanSetting,
  type ConfigSource,
  resolveSettings,
  validationDeferredToPolicies,
} from "./settings";
import { reportWarning } from "./step-log";

/** How the provider writes: PUT/POST (the default) or server-side apply, and whether it may take over fields. */
export interface WriteMode {
  serverSideApply: boolean;
  /** Server-side apply takes over conflicting fields other managers own. */
  force: boolean;
}

/**
 * What the provider reads from one `configure`: each setting is resolved once, at its first use, and an
 * unusable one fails the call that needs it, not configure, so a preview that calls no API needs no address.
 */
export interface ProviderSettings {
  /** Whether `check` leaves spec errors to the policy pack. */
  deferValidationToPolicies(): boolean;
  /**
   * Whether `check` and `diff` ask the API with dryRun=All: the setting is on and an API address is set.
   * Without an address, preview stays offline, as without the setting.
   */
  serverDryRun(): boolean;
  writeMode(): WriteMode;
  /**
   * The one client (and so one connection pool) of these settings, made at the first API call. Its warnings
   * go to the step they were answered in (`withStepLog`).
   */
  client(): Client;
  /** Closes the client, if one was made: the settings of the next configure replace these. */
  close(): void;
}

/** Before configure: every setting from the environment, or its default. */
export const NO_CONFIG: ConfigSource = { get: () => undefined };

export function providerSettings(config: ConfigSource): ProviderSettings {
  const deferValidationToPolicies = once(() => validationDeferredToPolicies(config));
  const serverDryRun = once(() => booleanSetting(config, "serverDryRun") && apiAddressConfigured(config));
  const writeMode = once(() => ({
    serverSideApply: booleanSetting(config, "serverSideApply"),
    force: booleanSetting(config, "serverSideApplyForce"),
  }));
  const apiSettings = once(() => resolveSettings(config));
  let client: Client | undefined;
  return {
    deferValidationToPolicies,
    serverDryRun,
    writeMode,
    client: () => {
      client ??= createClient({ ...apiSettings(), onWarning: reportWarning });
      return client;
    },
    close: () => void client?.close(),
  };
}

/** `read` run at the first call only; later calls return its value, or throw its error, again. */
function once<T>(read: () => T): () => T {
  let outcome: { value: T } | { error: unknown } | undefined;
  return () => {
    if (outcome === undefined) {
      try {
        outcome = { value: read() };
      } catch (error) {
        outcome = { error };
      }
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  };
}
