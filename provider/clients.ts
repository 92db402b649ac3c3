import { type Client, createClient } from "../sdk/client";
import {
  apiAddressConfigured,
  booleanSetting,
  type ConfigSource,
  resolveSettings,
  validationDeferredToPolicies,
} from "./settings";

// One client (and so one connection pool) per provider process. configure() runs before any other call;
// settings are resolved at the first API call, so a preview that never calls the API needs no address.
let source: ConfigSource = { get: () => undefined };
let current: { key: string; client: Client } | undefined;

export function configure(config: ConfigSource): void {
  source = config;
}

export function clientFor(): Client {
  const settings = resolveSettings(source);
  const key = JSON.stringify(settings);
  if (current?.key !== key) {
    void current?.client.close();
    current = { key, client: createClient(settings) };
  }
  return current.client;
}

export function checkDefersToPolicies(): boolean {
  return validationDeferredToPolicies(source);
}

/** How the provider writes: PUT/POST (the default) or server-side apply, and whether it may take over fields. */
export interface WriteMode {
  serverSideApply: boolean;
  /** Server-side apply takes over conflicting fields other managers own. */
  force: boolean;
}

export function writeMode(): WriteMode {
  return {
    serverSideApply: booleanSetting(source, "serverSideApply"),
    force: booleanSetting(source, "serverSideApplyForce"),
  };
}

/**
 * Whether `check` and `diff` ask the API with dryRun=All: the setting is on and an API address is set.
 * Without an address, preview stays offline, as without the setting.
 */
export function serverDryRunEnabled(): boolean {
  return booleanSetting(source, "serverDryRun") && apiAddressConfigured(source);
}
