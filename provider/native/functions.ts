// The native package's functions (invokes): `exampledev:compute/v1alpha1:getService` and its kin, which read
// an object a stack does not manage (docs/lookups.md). The dynamic resources have the same lookups as
// TypeScript functions in the program's process (sdk/resources/lookups.ts); both read through provider/lookups.ts.
import { NATIVE_PACKAGE, nativeModule } from "../../sdk/resources/type-tokens";
import { KIND_NAMES, type KindName } from "../../sdk/schema/kinds";

/** `exampledev:compute/v1alpha1:getService` for Service. */
export function getFunctionToken(kind: KindName): string {
  return `${NATIVE_PACKAGE}:${nativeModule(kind)}:get${kind}`;
}

/** The plural the list functions are named by (`listServices`). */
const PLURALS: Readonly<Record<KindName, string>> = {
  Proxy: "Proxies",
  Service: "Services",
  ServiceRevision: "ServiceRevisions",
};

/** `exampledev:compute/v1alpha1:listServices` for Service. */
export function listFunctionToken(kind: KindName): string {
  return `${NATIVE_PACKAGE}:${nativeModule(kind)}:list${PLURALS[kind]}`;
}

/** The type of a list function's items: what the kind's get function returns (`ServiceLookup`). */
export function lookupTypeToken(kind: KindName): string {
  return `${NATIVE_PACKAGE}:${nativeModule(kind)}:${kind}Lookup`;
}

/** The kind a function token reads and whether it lists, or undefined for a token the package does not have. */
export function functionOfToken(token: string): { kind: KindName; list: boolean } | undefined {
  for (const kind of KIND_NAMES) {
    if (getFunctionToken(kind) === token) return { kind, list: false };
    if (listFunctionToken(kind) === token) return { kind, list: true };
  }
  return undefined;
}
