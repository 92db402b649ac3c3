// Resolution of OCI bundle references for the controller: the public surface of this folder.
export type { FailureReason } from "./failure";
export { type Image, OCI_MANIFEST_TYPE, type PushOptions, type PushResult, pushImage } from "./push";
export { isLoopbackHost, registryBaseUrl } from "./reference";
export { DEFAULT_TAG, type ResolveOptions, type ResolveResult, resolveBundle } from "./resolve";
export type { Sleep } from "./retry";
