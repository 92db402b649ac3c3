// OCI registries for the builder and the controller: tag resolution and image pushes. The public surface of this folder.
export type { FailureReason } from "./failure";
export { type Image, OCI_MANIFEST_TYPE, type PushOptions, type PushResult, pushImage } from "./push";
export { isLoopbackHost, parseRepository, registryBaseUrl } from "./reference";
export { DEFAULT_TAG, type ResolveOptions, type ResolveResult, resolveBundle } from "./resolve";
export type { Sleep } from "./retry";
