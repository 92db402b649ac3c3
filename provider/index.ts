// The engine starts a provider process for every CLI run, and the first check waits for this package to load:
// Node's on-disk compile cache (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE
// turns it off) spares recompiling it and zod each time. First, so that the imports below use it.
import "../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { enableCompileCache } from "node:module";

enableCompileCache?.();

import type { KindName } from "../sdk/schema";
import { DynamicProvider } from "./dynamic-provider";
import type { ObjectProvider } from "./object-provider";

export { SETTING_KEYS, type Settings } from "./settings";

/**
 * The dynamic provider of one kind. The SDK's resource classes reach it by package name at call time
 * (`@exampledev/pulumi/provider`), so Pulumi serializes only a small shim, never this code or credentials.
 * The dynamic provider host calls this once per kind and process, keeps the provider and configures it:
 * its settings live in it, not in this module.
 */
export function resourceProvider(kind: KindName): ObjectProvider {
  return new DynamicProvider(kind);
}
