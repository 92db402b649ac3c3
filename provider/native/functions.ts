// The native package's functions (invokes): `exampledev:compute/v1alpha1:getService` and its kin, which read
// an object a stack does not manage (docs/lookups.md). The dynamic resources have the same lookups as
// TypeScript functions in the program's process (sdk/resources/lookups.ts); both read through provider/lookups.ts.
import { NATIVE_PACKAGE, nativeModule } from "../../sdk/resources/type-tokens";
import { KIND_NAMES, type KindName } from "../../sdk/schema/kinds";

/** `exampledev:compute/v1alpha1:getService` for Service. */
export function getFunctionToken(kind: KindName): string {
  return `${NATIVE_PACKAGE}:${nativeModule(kind)}:get${kind}`;
}

/** The kind a function token reads, or undefined for a token the package does not have. */
export function kindOfFunctionToken(token: string): KindName | undefined {
  return KIND_NAMES.find((kind) => getFunctionToken(kind) === token);
}
