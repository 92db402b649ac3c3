import type { KindName } from "../sdk/schema";
import { ObjectProvider } from "./object-provider";

export { SETTING_KEYS, type Settings } from "./settings";

const providers = new Map<KindName, ObjectProvider>();

/**
 * The dynamic provider of one kind. The SDK's resource classes reach it by package name at call time
 * (`@exampledev/pulumi/provider`), so Pulumi serializes only a small shim, never this code or credentials.
 */
export function resourceProvider(kind: KindName): ObjectProvider {
  let provider = providers.get(kind);
  if (provider === undefined) {
    provider = new ObjectProvider(kind);
    providers.set(kind, provider);
  }
  return provider;
}
