import type { KindName } from "../../sdk/schema";
import { ApiError, badRequest } from "../errors";
import type { Query } from "../routes/query";
import { single } from "../routes/query";
import type { ObjectStore } from "../storage";
import type { EventHistory } from "../storage/history";
import { type FieldSelector, parseFieldSelector } from "./field-selector";
import { parseLimit } from "./paging";
import { type LabelSelector, parseLabelSelector } from "./selector";

export type ResourceVersionMatch = "NotOlderThan" | "Exact";

/** Kubernetes' ListOptions as this server reads them from the query of a list or a watch. */
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

/** The query parameters of a list (and a watch, which is a list with `watch=true`). */
export const LIST_PARAMETERS = [
  "labelSelector",
  "fieldSelector",
  "limit",
  "continue",
  "resourceVersion",
  "resourceVersionMatch",
  "watch",
  "allowWatchBookmarks",
  "timeoutSeconds",
  "sendInitialEvents",
  "includeObject",
] as const;

/** The query parameters of a get. */
export const GET_PARAMETERS = ["resourceVersion", "resourceVersionMatch", "includeObject"] as const;

/**
 * Reads and checks ListOptions with Kubernetes' rules (`ValidateListOptions`); every refusal is a 400
 * naming the parameter, never a silently different request.
 */
export function parseListOptions(query: Query): ListOptions {
  const watch = parseBoolean(query, "watch") ?? false;
  const options: ListOptions = {
    labels: parseLabelSelector(single(query, "labelSelector")),
    fields: parseFieldSelector(single(query, "fieldSelector")),
    limit: parseLimit(single(query, "limit")),
    continue: nonEmpty(single(query, "continue")),
    resourceVersion: parseResourceVersion(single(query, "resourceVersion")),
    resourceVersionMatch: parseMatch(single(query, "resourceVersionMatch")),
    watch,
    allowWatchBookmarks: parseBoolean(query, "allowWatchBookmarks") ?? false,
    timeoutSeconds: parseTimeout(single(query, "timeoutSeconds")),
    sendInitialEvents: parseBoolean(query, "sendInitialEvents"),
  };
  const { resourceVersion, resourceVersionMatch: match, sendInitialEvents } = options;
  const version = resourceVersion ?? "";
  if (options.continue !== undefined && version !== "" && version !== "0") {
    throw badRequest(
      `resourceVersion: specifying a resource version is not allowed when using continue (got ${JSON.stringify(version)}); the continue token already pins where the list goes on`,
    );
  }
  if (match !== undefined && options.continue !== undefined) {
    throw badRequest("resourceVersionMatch: resourceVersionMatch is forbidden when continue is provided");
  }
  if (watch) {
    if (options.continue !== undefined)
      throw badRequest("continue: a watch cannot continue a list; start it at a resourceVersion instead");
    if (sendInitialEvents !== undefined && match !== "NotOlderThan") {
      throw badRequest(
        "resourceVersionMatch: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      );
    }
    if (match !== undefined && sendInitialEvents === undefined) {
      throw badRequest(
        "resourceVersionMatch: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      );
    }
    if (match === "Exact") {
      throw badRequest(
        'resourceVersionMatch: Unsupported value: "Exact" for a watch: supported values: "NotOlderThan"',
      );
    }
    return options;
  }
  if (sendInitialEvents !== undefined)
    throw badRequest("sendInitialEvents: sendInitialEvents is forbidden for list; use it with watch=true");
  if (match !== undefined && version === "") {
    throw badRequest(
      "resourceVersionMatch: resourceVersionMatch is forbidden unless resourceVersion is provided",
    );
  }
  if (match === "Exact" && version === "0") {
    throw badRequest(
      'resourceVersionMatch: resourceVersionMatch "Exact" is forbidden for resourceVersion "0"',
    );
  }
  return options;
}

/** `resourceVersion` (and `resourceVersionMatch`) of a get. */
export function parseGetOptions(query: Query): {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
} {
  const resourceVersion = parseResourceVersion(single(query, "resourceVersion"));
  const resourceVersionMatch = parseMatch(single(query, "resourceVersionMatch"));
  if (resourceVersionMatch !== undefined && (resourceVersion ?? "") === "") {
    throw badRequest(
      "resourceVersionMatch: resourceVersionMatch is forbidden unless resourceVersion is provided",
    );
  }
  if (resourceVersionMatch === "Exact" && resourceVersion === "0") {
    throw badRequest(
      'resourceVersionMatch: resourceVersionMatch "Exact" is forbidden for resourceVersion "0"',
    );
  }
  return { resourceVersion, resourceVersionMatch };
}

export interface ReadVersion {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** A list with a limit and a version but no match is served at exactly that version (Kubernetes' legacy rule). */
  limit?: number;
}

/**
 * Checks that a read can be served with Kubernetes' resourceVersion semantics from a store that holds only
 * the current state, and returns the version the answer is at. Unset, "" and "0": the current state.
 * `NotOlderThan` (and a version without a match): the current state, unless the version is newer than
 * anything written (504 `Timeout`, "Too large resource version", as Kubernetes answers once it stops
 * waiting). `Exact`: the state at that version, which this server can serve only when nothing that the read
 * covers changed since (the history of events tells), otherwise 410 `Expired`: no snapshots are kept.
 * `changedSince` narrows "what the read covers" (one object for a get).
 */
export function checkReadVersion(
  kind: KindName,
  store: ObjectStore,
  history: EventHistory,
  read: ReadVersion,
  name?: string,
): string {
  const current = store.resourceVersion();
  const { resourceVersion: version, resourceVersionMatch: match } = read;
  if (version === undefined || version === "" || version === "0") return current;
  const wanted = Number(version);
  if (wanted > Number(current)) throw tooLarge(version, current);
  const exact = match === "Exact" || (match === undefined && read.limit !== undefined);
  if (!exact || wanted === Number(current)) return exact ? version : current;
  const changes = history.since(kind, wanted);
  const changed = changes?.some((event) => name === undefined || event.object.metadata.name === name);
  if (changed === false) return version;
  // kube-apiserver's words when etcd has compacted the version away.
  throw new ApiError("Expired", "The resourceVersion for the provided list is too old.");
}

/** 410 Expired, in kube-apiserver's words for a watch from a version older than its watch cache keeps. */
export function expired(version: string, oldest: string | number): ApiError {
  return new ApiError("Expired", `too old resource version: ${version} (${oldest})`);
}

function tooLarge(version: string, current: string): ApiError {
  return new ApiError("Timeout", `Too large resource version: ${version}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds: 1,
  });
}

const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/** A boolean query parameter as Go's strconv.ParseBool reads it (what Kubernetes uses); "" is absent. */
export function parseBoolean(query: Query, name: string): boolean | undefined {
  const value = single(query, name);
  if (value === undefined || value === "") return undefined;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw badRequest(`${name}: "${value}" is not a boolean; use true or false (or 1 or 0)`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

function parseResourceVersion(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value !== "" && !/^(0|[1-9]\d{0,15})$/.test(value)) {
    throw badRequest(
      `resourceVersion: "${value}" is not a resource version of this server; pass a metadata.resourceVersion it returned, "0" (any) or nothing (the latest)`,
    );
  }
  return value;
}

function parseMatch(value: string | undefined): ResourceVersionMatch | undefined {
  if (value === undefined || value === "") return undefined;
  if (value === "NotOlderThan" || value === "Exact") return value;
  throw badRequest(
    `resourceVersionMatch: Unsupported value: "${value}": supported values: "Exact", "NotOlderThan", ""`,
  );
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(seconds)) {
    throw badRequest(`timeoutSeconds: "${value}" is not a whole number of seconds (0 or more)`);
  }
  return seconds === 0 ? undefined : seconds;
}
