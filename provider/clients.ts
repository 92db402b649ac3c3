import { type Client, createClient } from "../sdk/client";
import { type ConfigSource, resolveSettings, validationDeferredToPolicies } from "./settings";

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
