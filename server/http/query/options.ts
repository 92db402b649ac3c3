import { badRequest } from "../../../sdk/errors/server-errors";
import type { ApplyOptions } from "../../resources/apply";
import { type DeleteOptions, orphanPolicy, readDeleteBody } from "../../resources/deletion";
import type { ListOptions } from "../../resources/list-options";
import type { WriteOptions } from "../../resources/operations";
import { fieldManagerOf } from "./field-manager";
import type { QueryOf } from "./table";

/**
 * The options objects of the operations in `server/resources/`, made from a typed query (and, for a
 * delete, the DeleteOptions body; for a write, the User-Agent), with Kubernetes' rules on how parameters
 * combine. Every refusal is a 400 naming the parameter, never a silently different request.
 */

/** ListOptions of a list or a watch, checked as Kubernetes' `ValidateListOptions` does. */
export function listOptions(query: QueryOf<"list" | "watch">): ListOptions {
  const options: ListOptions = {
    labels: query.labelSelector,
    fields: query.fieldSelector,
    limit: query.limit,
    continue: query.continue,
    resourceVersion: query.resourceVersion,
    resourceVersionMatch: query.resourceVersionMatch,
    watch: query.watch,
    allowWatchBookmarks: query.allowWatchBookmarks,
    timeoutSeconds: query.timeoutSeconds,
    sendInitialEvents: query.sendInitialEvents,
  };
  const { resourceVersionMatch: match, sendInitialEvents } = options;
  const version = options.resourceVersion ?? "";
  if (options.continue !== undefined && version !== "" && version !== "0") {
    throw badRequest(
      `resourceVersion: specifying a resource version is not allowed when using continue (got ${JSON.stringify(version)}); the continue token already pins where the list goes on`,
    );
  }
  if (match !== undefined && options.continue !== undefined) {
    throw badRequest("resourceVersionMatch: resourceVersionMatch is forbidden when continue is provided");
  }
  if (options.watch) {
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
  checkVersionMatch(options);
  return options;
}

/** The version a get reads at. */
export function getOptions(
  query: QueryOf<"get">,
): Pick<ListOptions, "resourceVersion" | "resourceVersionMatch"> {
  const options = {
    resourceVersion: query.resourceVersion,
    resourceVersionMatch: query.resourceVersionMatch,
  };
  checkVersionMatch(options);
  return options;
}

/** The rules a list and a get share on `resourceVersion` with `resourceVersionMatch`. */
function checkVersionMatch({ resourceVersion, resourceVersionMatch }: Partial<ListOptions>): void {
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
}

/** A create, a replace (PUT), a merge or JSON patch: recorded under `fieldManager`, else the User-Agent's product. */
export function writeOptions(
  query: QueryOf<"create" | "replace"> | QueryOf<"patch">,
  userAgent: string | undefined,
): WriteOptions {
  const force = "force" in query ? query.force : undefined;
  return {
    fieldValidation: query.fieldValidation,
    manager: fieldManagerOf(query.fieldManager, userAgent, { apply: false, force }),
    dryRun: query.dryRun,
  };
}

/** An apply patch: a field manager is required; `force` and `dryRun=All` are optional. */
export function applyOptions(query: QueryOf<"apply">, userAgent: string | undefined): ApplyOptions {
  return {
    manager: fieldManagerOf(query.fieldManager, userAgent, { apply: true }),
    force: query.force ?? false,
    fieldValidation: query.fieldValidation,
    dryRun: query.dryRun,
  };
}

/**
 * The DeleteOptions of a DELETE: the optional body and the fields Kubernetes also reads from the query (all
 * but preconditions). A field given both ways must say the same.
 */
export function deleteOptions(query: QueryOf<"delete" | "deletecollection">, body: unknown): DeleteOptions {
  const fromBody = readDeleteBody(body);
  const fromQuery: DeleteOptions = {
    propagationPolicy: query.propagationPolicy,
    gracePeriodSeconds: query.gracePeriodSeconds,
    dryRun: query.dryRun || undefined,
  };
  if (query.orphanDependents !== undefined) {
    fromQuery.propagationPolicy = orphanPolicy(
      query.orphanDependents,
      fromQuery.propagationPolicy,
      "orphanDependents",
    );
    fromQuery.orphanDependents = query.orphanDependents;
  }
  const options: DeleteOptions = { ...fromBody };
  for (const field of ["propagationPolicy", "orphanDependents", "gracePeriodSeconds", "dryRun"] as const) {
    const given = fromQuery[field];
    if (given === undefined) continue;
    const inBody = fromBody[field];
    if (inBody !== undefined && inBody !== given) {
      throw badRequest(
        `${field}: the query parameter says ${JSON.stringify(given)} and the DeleteOptions body ${JSON.stringify(inBody)}; give it once`,
      );
    }
    Object.assign(options, { [field]: given });
  }
  return options;
}
