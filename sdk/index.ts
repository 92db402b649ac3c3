/**
 * @exampledev/pulumi: Pulumi resources for the Proxy and Compute Service Configuration API.
 * The typed HTTP client is at `@exampledev/pulumi/client`, the schema at `@exampledev/pulumi/schema`.
 */
export * from "./resources";
export { KINDS, type KindName, RULES, UNKNOWN, validateSpec } from "./schema";
