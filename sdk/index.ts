/**
 * @exampledev/pulumi: Pulumi resources for the Proxy and Compute Service Configuration API.
 * The typed HTTP client is at `@exampledev/pulumi/client`, the schema at `@exampledev/pulumi/schema`.
 */
import "./shared/node-version"; // first: fails on a Node older than the package needs, before anything loads

export * from "./resources";
export { KINDS, type KindName } from "./schema/kinds";
export { UNKNOWN } from "./schema/sentinel";

// These two need the zod schema, so they load it when first read, as Pulumi's generated SDKs load their
// modules: a program that only declares resources, as every preview runs one, never loads it. The
// assignments let Node's ESM loader find the names (it reads `exports.NAME =`); the getters replace them.
export const RULES: typeof import("./schema").RULES = undefined as never;
export const validateSpec: typeof import("./schema").validateSpec = undefined as never;
for (const name of ["RULES", "validateSpec"] as const) {
  Object.defineProperty(exports, name, { enumerable: true, get: () => require("./schema")[name] });
}
