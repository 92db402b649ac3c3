// The `SourceReady` condition of a git-sourced Service: how the last fetch of its repository ended, in the
// failure's own (redacted) words, so an unreachable repository, a URL the server refuses, refused
// credentials or a missing branch show in status within one poll instead of only in the server's log.

import type { FetchFailure, FetchFailureReason } from "../../builder/git";
import { branchRef, missingBranch, type RefSnapshot } from "../../builder/git";
import { CONDITION_REASONS, CONDITION_TYPES } from "../../sdk/schema/status";
import type { ConditionState } from "../conditions";

const { Fetched, AwaitingFetch, FetchRefused, FetchCredentialsNotFound, BranchNotFound } =
  CONDITION_REASONS.SourceReady;

export interface SourceObservation {
  url: string;
  branch: string;
  /** Why `--git-allow` refuses the URL, when it does. */
  refusal?: string;
  /** Why the credentials `credentialsRef` names cannot be had, when they cannot. */
  missingCredentials?: string;
  /** How the last fetch failed; undefined when it worked or none finished. */
  failure?: FetchFailure;
  /** The refs of the last fetch that worked (undefined when the last one failed, or before one). */
  refs?: RefSnapshot;
}

export function sourceReadyCondition(observed: SourceObservation): ConditionState {
  const type = CONDITION_TYPES.SourceReady;
  const failed = (reason: FetchFailureReason, message: string) =>
    ({ type, status: "False", reason, message }) as const;
  if (observed.refusal !== undefined) return failed(FetchRefused, observed.refusal);
  if (observed.missingCredentials !== undefined)
    return failed(FetchCredentialsNotFound, observed.missingCredentials);
  if (observed.failure) return failed(observed.failure.reason, observed.failure.message);
  if (!observed.refs) {
    return {
      type,
      status: "Unknown",
      reason: AwaitingFetch,
      message: `no fetch of ${observed.url} has finished yet`,
    };
  }
  const head = observed.refs.get(branchRef(observed.branch));
  if (!head) return failed(BranchNotFound, missingBranch(observed.branch, observed.url, observed.refs));
  return {
    type,
    status: "True",
    reason: Fetched,
    message: `fetched ${observed.url}: branch "${observed.branch}" is at ${head.commit.slice(0, 12)}`,
  };
}
