// The engine starts a provider process for every CLI run, and the first check waits for this package to load:
// Node's on-disk compile cache (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE
// turns it off) spares recompiling it and zod each time. First, so that the imports below use it.
import { enableCompileCache } from "node:module";

enableCompileCache?.();

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
