import { type FieldValidation, parseFieldValidation } from "../../../admission";
import { badRequest } from "../../../sdk/errors/server-errors";
import type { PropagationPolicy } from "../../lifecycle";
import { readPolicy } from "../../resources/deletion";
import { parseDryRun } from "../../resources/dry-run";
import { parseFieldSelector } from "../../resources/field-selector";
import type { ResourceVersionMatch } from "../../resources/list-options";
import { parseLabelSelector } from "../../resources/selector";
import type { IncludeObject } from "../../resources/table";

/**
 * The one table of query parameters: what each is (its OpenAPI type and description), how its value is
 * read, and which operations take it, named as Kubernetes names them. It drives the refusal of unknown
 * and malformed parameters (`parse.ts`), the typed query of each operation, and the OpenAPI paths.
 */

export const OPERATIONS = [
  "list",
  "watch",
  "get",
  "create",
  "replace",
  "patch",
  "apply",
  "delete",
  "deletecollection",
] as const;
export type Operation = (typeof OPERATIONS)[number];

interface Described {
  /** The OpenAPI type of the value. */
  type: "string" | "integer" | "boolean";
  description: string;
  operations: readonly Operation[];
}

/**
 * A parameter is given once (`parse` reads its one value; undefined when absent) or, when `repeatable`,
 * any number of times (Kubernetes' list-valued options: `parse` reads them all).
 */
type QueryParameter = Described &
  (
    | { repeatable?: false; parse(value: string | undefined): unknown }
    | { repeatable: true; parse(values: readonly string[]): unknown }
  );

const READS = ["list", "watch"] as const;
const TABLES = ["list", "watch", "get"] as const;
const WRITES = ["create", "replace", "patch", "apply"] as const;
const PATCHES = ["patch", "apply"] as const;
const DELETES = ["delete", "deletecollection"] as const;
const SELECTS = ["list", "watch", "deletecollection"] as const;

export const QUERY_PARAMETERS = {
  labelSelector: {
    type: "string",
    description: "Only the objects whose labels match (=, ==, !=, in, notin, exists, !exists).",
    operations: SELECTS,
    parse: parseLabelSelector,
  },
  fieldSelector: {
    type: "string",
    description:
      "Only the objects whose fields match: metadata.name (and metadata.namespace) with =, == or !=.",
    operations: SELECTS,
    parse: parseFieldSelector,
  },
  limit: {
    type: "integer",
    description: "At most this many objects; metadata.continue fetches the next page.",
    operations: READS,
    // 0 is no limit.
    parse: (value) =>
      wholeNumber("limit", value, "a valid page size; use a whole number of 0 (no limit) or more") ||
      undefined,
  },
  continue: {
    type: "string",
    description:
      "The continue token of the previous page (metadata.continue); the list goes on after the last name it returned.",
    operations: READS,
    parse: (value: string | undefined) => (value === "" ? undefined : value),
  },
  resourceVersion: {
    type: "string",
    description:
      'The version to read at: unset (the latest), "0" (any) or a metadata.resourceVersion; with watch=true, the events after it.',
    operations: TABLES,
    parse: parseResourceVersion,
  },
  resourceVersionMatch: {
    type: "string",
    description:
      "How resourceVersion is matched: NotOlderThan or Exact (served only when nothing changed since; 410 Expired otherwise).",
    operations: TABLES,
    parse: parseMatch,
  },
  watch: {
    type: "boolean",
    description:
      "Stream ADDED, MODIFIED, DELETED (and BOOKMARK) events as newline-delimited JSON instead of answering a list.",
    operations: READS,
    parse: (value) => parseBoolean("watch", value) ?? false,
  },
  allowWatchBookmarks: {
    type: "boolean",
    description:
      "With watch=true: also send BOOKMARK events, which carry only the resourceVersion the watch has reached.",
    operations: READS,
    parse: (value) => parseBoolean("allowWatchBookmarks", value) ?? false,
  },
  timeoutSeconds: {
    type: "integer",
    description: "With watch=true: end the watch after this many seconds.",
    operations: READS,
    // 0 is the server's own bound.
    parse: (value) => wholeNumber("timeoutSeconds", value, SECONDS) || undefined,
  },
  sendInitialEvents: {
    type: "boolean",
    description:
      "With watch=true and resourceVersionMatch=NotOlderThan: start with ADDED events for the current objects, then a bookmark marking their end.",
    operations: READS,
    parse: (value) => parseBoolean("sendInitialEvents", value),
  },
  includeObject: {
    type: "string",
    description:
      "With a Table answer: include each object as None, Metadata (PartialObjectMetadata, the default) or Object.",
    operations: TABLES,
    parse: parseIncludeObject,
  },
  fieldValidation: {
    type: "string",
    description:
      "What happens to fields the API does not have: Strict refuses the request, Warn (the default) drops each and names it in a Warning header, Ignore drops them silently.",
    operations: WRITES,
    parse: (value): FieldValidation => parseFieldValidation(value),
  },
  fieldManager: {
    type: "string",
    description:
      "The name of the actor making the change, recorded in metadata.managedFields. Required for apply patches; other writes default to the User-Agent's product name.",
    operations: WRITES,
    parse: (value: string | undefined) => value,
  },
  force: {
    type: "boolean",
    description:
      "Apply patches only: take ownership of the fields other managers own instead of refusing the request with a conflict.",
    operations: PATCHES,
    // Absent and empty differ: any force on a patch other than an apply is refused (field-manager.ts).
    parse: (value) => (value === "" ? false : parseBoolean("force", value)),
  },
  dryRun: {
    type: "string",
    description:
      'With "All", the request is processed (merged, validated, defaulted) and answered, but nothing is stored or deleted.',
    operations: [...WRITES, ...DELETES],
    repeatable: true,
    parse: (values: readonly string[]) =>
      values.length > 0 && parseDryRun(values.length === 1 ? values[0] : [...values]),
  },
  propagationPolicy: {
    type: "string",
    description:
      "What happens to the objects this one owns: Background (the default: deleted after it), Foreground (deleted before it; it waits with the foregroundDeletion finalizer) or Orphan (they stay, without the owner reference).",
    operations: DELETES,
    parse: (value): PropagationPolicy | undefined =>
      value === undefined || value === "" ? undefined : readPolicy(value, "propagationPolicy"),
  },
  gracePeriodSeconds: {
    type: "integer",
    description:
      "Accepted and checked (a whole number of seconds), without effect, as for any custom resource: what keeps an object terminating is its finalizers (a Proxy's is the controller's drain).",
    operations: DELETES,
    parse: (value) => wholeNumber("gracePeriodSeconds", value, SECONDS),
  },
  orphanDependents: {
    type: "boolean",
    description: "Deprecated: true is propagationPolicy=Orphan, false Background.",
    operations: DELETES,
    parse: (value) => parseBoolean("orphanDependents", value),
  },
} as const satisfies Record<string, QueryParameter>;

export type ParameterName = keyof typeof QUERY_PARAMETERS;

type ParameterValues = {
  -readonly [N in ParameterName]: ReturnType<(typeof QUERY_PARAMETERS)[N]["parse"]>;
};

/** The parameters every one of the operations `O` takes. */
type ParametersOf<O extends Operation> = {
  [N in ParameterName]: [O] extends [(typeof QUERY_PARAMETERS)[N]["operations"][number]] ? N : never;
}[ParameterName];

/**
 * The typed query of an operation: each parameter it takes, read (absent ones at their defaults). Of
 * several operations: the parameters they all take.
 */
export type QueryOf<O extends Operation> = Pick<ParameterValues, ParametersOf<O>>;

/** The parameters `operation` takes, in the table's order. */
export function parametersOf(operation: Operation): ParameterName[] {
  return (Object.keys(QUERY_PARAMETERS) as ParameterName[]).filter((name) =>
    (QUERY_PARAMETERS[name].operations as readonly Operation[]).includes(operation),
  );
}

const SECONDS = "a whole number of seconds (0 or more)";
const TRUE: ReadonlySet<string> = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE: ReadonlySet<string> = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/** A boolean as Go's strconv.ParseBool reads it (what Kubernetes uses); "" is absent. */
function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw badRequest(`${name}: "${value}" is not a boolean; use true or false (or 1 or 0)`);
}

/** A whole number, 0 or more; "" is absent. */
function wholeNumber(name: string, value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number))
    throw badRequest(`${name}: "${value}" is not ${what}`);
  return number;
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

/** `includeObject` (TableOptions): Metadata by default. */
function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === "") return "Metadata";
  if (value === "None" || value === "Metadata" || value === "Object") return value;
  throw badRequest(`includeObject: "${value}" is not supported; use None, Metadata or Object`);
}
