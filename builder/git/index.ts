// The git half of the builder: mirrors of the repositories sources name, builds of a commit into an OCI image,
// and what a git host's push delivery says. What a Service's status makes of them is the controller's.
export { BUILD_ANNOTATIONS, BUNDLE_LAYER_TYPE, type BuildRequest, type BuildResult, runBuild } from "./build";
export { BuildFailure, buildMessage, FetchFailure, type FetchFailureReason } from "./failure";
export { KeyedLock } from "./keyed-lock";
export { branchRef, type MirrorSource, Mirrors, mirrorKey, missingBranch, type RefSnapshot } from "./mirrors";
export { Slots } from "./slots";
export { GitAllowList, gitHost, repositoryKey, URL_FIELD } from "./url";
export { type HookEvent, parseHookEvent } from "./webhook";
