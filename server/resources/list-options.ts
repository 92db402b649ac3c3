import type { ApiError } from "../../sdk/errors";
import { apiError } from "../../sdk/errors/server-errors";
import type { KindName } from "../../sdk/schema";
import type { ObjectStore } from "../storage";
import type { EventHistory } from "../storage/history";
import type { FieldSelector } from "./field-selector";
import type { LabelSelector } from "./selector";

export type ResourceVersionMatch = "NotOlderThan" | "Exact";

/** Kubernetes' ListOptions of a list or a watch. */
export interface ListOptions {
  labels: LabelSelector;
  fields: FieldSelector;
  limit?: number;
  continue?: string;
  /** As sent: undefined or "" (most recent), "0" (any), or a version. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  watch: boolean;
  allowWatchBookmarks: boolean;
  /** 0 or absent: the server's own bound. */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

export interface ReadVersion {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** A list with a limit and a version but no match is served at exactly that version (Kubernetes' legacy rule). */
  limit?: number;
  /** A get: what the read covers is this one object (a list covers the whole kind). */
  name?: string;
}

/** Where a read happens: the kind, the store that holds its current state, and the history of its events. */
export interface ReadScope {
  kind: KindName;
  store: ObjectStore;
  history: EventHistory;
}

/**
 * Checks that a read can be served with Kubernetes' resourceVersion semantics from a store that holds only
 * the current state, and returns the version the answer is at. Unset, "" and "0": the current state.
 * `NotOlderThan` (and a version without a match): the current state, unless the version is newer than
 * anything written (504 `Timeout`, "Too large resource version", as Kubernetes answers once it stops
 * waiting). `Exact`: the state at that version, which this server can serve only when nothing that the read
 * covers changed since (the history of events tells), otherwise 410 `Expired`: no snapshots are kept.
 * `read.name` narrows "what the read covers" (one object for a get).
 */
export function checkReadVersion({ kind, store, history }: ReadScope, read: ReadVersion): string {
  const current = store.resourceVersion();
  const { resourceVersion: version, resourceVersionMatch: match, name } = read;
  if (version === undefined || version === "" || version === "0") return current;
  const wanted = Number(version);
  if (wanted > Number(current)) throw tooLarge(version, current);
  const exact = match === "Exact" || (match === undefined && read.limit !== undefined);
  if (!exact || wanted === Number(current)) return exact ? version : current;
  const changes = history.since(kind, wanted);
  const changed = changes?.some((event) => name === undefined || event.object.metadata.name === name);
  if (changed === false) return version;
  // kube-apiserver's words when etcd has compacted the version away.
  throw apiError("Expired", "The resourceVersion for the provided list is too old.");
}

/** 410 Expired, in kube-apiserver's words for a watch from a version older than its watch cache keeps. */
export function expired(version: string, oldest: string | number): ApiError {
  return apiError("Expired", `too old resource version: ${version} (${oldest})`);
}

function tooLarge(version: string, current: string): ApiError {
  return apiError("Timeout", `Too large resource version: ${version}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds: 1,
  });
}
