// The Pulumi type token of each resource class, built in one place: the token `pulumi.dynamic.Resource`
// would give module `RESOURCE_MODULE` and type `<Kind>`, `pulumi-nodejs:dynamic/<module>:<type>`, whose
// package sends the resource to the engine's dynamic-provider host; policies match resources on these tokens. No @pulumi/pulumi import here, so the policy pack can load it
// without loading the resource classes.
import { KIND_NAMES, KINDS, type KindName } from "../schema/kinds";

/** The module of every resource class's dynamic type token; its type is the kind. */
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

/** The Pulumi package of the native provider plugin (`pulumi-resource-exampledev`). */
export const NATIVE_PACKAGE = "exampledev";

/** `core/v1alpha2` for a kind of `core.example.dev/v1alpha2`: the native token's module. */
export function nativeModule(kind: KindName): string {
  const { group, version } = KINDS[kind];
  return `${group.split(".")[0]}/${version}`;
}

/** `exampledev:core/v1alpha2:Proxy`: the native package's token of a kind. */
export function nativeTypeToken(kind: KindName): string {
  return `${NATIVE_PACKAGE}:${nativeModule(kind)}:${kind}`;
}

/** `exampledev:<group>/<version>:<Kind>` for each kind. */
export const NATIVE_TYPE_TOKENS: Readonly<Record<KindName, string>> = Object.freeze(
  Object.fromEntries(KIND_NAMES.map((kind) => [kind, nativeTypeToken(kind)])) as Record<KindName, string>,
);

/** The kind a type token of either family (dynamic or native) names, or undefined for other resources. */
export function kindOfTypeToken(token: string): KindName | undefined {
  return KIND_NAMES.find((kind) => TYPE_TOKENS[kind] === token || NATIVE_TYPE_TOKENS[kind] === token);
}
