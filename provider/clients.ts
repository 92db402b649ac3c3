import { type Client, createClient } from "../sdk/client";
import { resolveSettings, type Settings } from "./settings";

// One client (and so one connection pool) per provider process: configure() runs once per serialized
// provider, before any CRUD call, and all kinds share the stack's settings.
let settings: Settings | undefined;
let client: Client | undefined;

export function configure(config: { get(key: string): string | undefined }): void {
  const next = resolveSettings(config);
  if (client !== undefined && JSON.stringify(next) === JSON.stringify(settings)) return;
  void client?.close();
  settings = next;
  client = createClient(next);
}

export function clientFor(): Client {
  if (client === undefined) configure({ get: () => undefined });
  return client as Client;
}
