import type { KindName } from "../schema";

/** The module the dynamic-provider host loads the implementation from, by package name. */
export const PROVIDER_MODULE = "@exampledev/pulumi/provider";

/**
 * The `__provider` property of every resource of `kind`: the module text the engine's dynamic-provider host
 * (`@pulumi/pulumi/cmd/dynamic-provider`) evaluates, calling its `handler()` for the provider. Written here
 * instead of serialized from a closure: one line, nothing local (no schema, no credential) in it, and the
 * installed package's code runs. Pulumi stores it in every resource's inputs and outputs and rewrites the
 * whole state after each step, so its size is paid per resource per step: the closure serializer's text of
 * the same provider was 2.2 kB.
 */
export function providerSource(kind: KindName): string {
  return `exports.handler = () => require(${JSON.stringify(PROVIDER_MODULE)}).resourceProvider(${JSON.stringify(kind)});`;
}
