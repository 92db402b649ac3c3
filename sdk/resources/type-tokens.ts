// The Pulumi type token of each resource class, built in one place. The classes pass `RESOURCE_MODULE` and
// the kind name to `pulumi.dynamic.Resource`, which names the type `pulumi-nodejs:dynamic/<module>:<type>`;
// policies match resources on these tokens. No @pulumi/pulumi import here, so the policy pack can load it
// without loading the resource classes.
import { KIND_NAMES, type KindName } from "../schema";

/** The `module` argument every resource class passes to `pulumi.dynamic.Resource`; its `type` is the kind. */
export const RESOURCE_MODULE = "exampledev";

/** The token `pulumi.dynamic.Resource` gives a resource of `module` and `type` (its own naming rule). */
export function dynamicTypeToken(module: string, type: string): string {
  return `pulumi-nodejs:dynamic/${module}:${type}`;
}

/** `pulumi-nodejs:dynamic/exampledev:<Kind>` for each kind. */
export const TYPE_TOKENS: Readonly<Record<KindName, string>> = Object.freeze(
  Object.fromEntries(KIND_NAMES.map((kind) => [kind, dynamicTypeToken(RESOURCE_MODULE, kind)])) as Record<
    KindName,
    string
  >,
);
