import type { FastifyRequest } from "fastify";
import { badRequest } from "../../../sdk/errors/server-errors";
import { type Operation, type ParameterName, parametersOf, QUERY_PARAMETERS, type QueryOf } from "./table";

/** A query string as fastify reads it: a repeated parameter is an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** The typed query of a request, with the operation it was read for. */
export type ParsedQuery = { [O in Operation]: { operation: O; query: QueryOf<O> } }[Operation];

/**
 * Reads the query of `operation` with the table: a parameter the operation does not take is refused (400),
 * never ignored (a misspelt `labelSelector` would widen a delete-collection to every object, an unread
 * `dryRun` would really write), and so is a malformed value or a parameter given twice that is not a list.
 */
export function parseQuery<O extends Operation>(operation: O, raw: RawQuery): QueryOf<O> {
  const names = parametersOf(operation);
  const unsupported = Object.keys(raw).filter((name) => !(names as string[]).includes(name));
  if (unsupported.length > 0) {
    const are = names.length > 1 ? "are" : "is";
    throw badRequest(
      `unsupported query parameter ${unsupported.join(", ")}: only ${names.join(", ")} ${are} supported here`,
    );
  }
  return Object.fromEntries(names.map((name) => [name, parseParameter(name, raw[name])])) as QueryOf<O>;
}

/** One parameter's value as the table reads it. */
export function parseParameter(name: ParameterName, raw: string | string[] | undefined): unknown {
  const parameter: (typeof QUERY_PARAMETERS)[ParameterName] = QUERY_PARAMETERS[name];
  const values = raw === undefined ? [] : [raw].flat();
  if ("repeatable" in parameter) return parameter.parse(values);
  if (values.length > 1)
    throw badRequest(`${name}: give the query parameter once, not ${values.length} times`);
  return parameter.parse(values[0]);
}

const parsed = new WeakMap<FastifyRequest, ParsedQuery>();

/**
 * A preValidation hook that reads a request's query for the operation `operationOf` says it is (a GET of
 * a collection is a list or a watch, a PATCH a patch or an apply), before any handler or the strict JSON
 * check looks at it; `queryOf` then hands the typed query out.
 */
export function readQuery(operationOf: Operation | ((request: FastifyRequest) => Operation)) {
  return async (request: FastifyRequest) => {
    const operation = typeof operationOf === "function" ? operationOf(request) : operationOf;
    parsed.set(request, {
      operation,
      query: parseQuery(operation, request.query as RawQuery),
    } as ParsedQuery);
  };
}

/** The typed query `readQuery` read for this request. */
export function queryOf(request: FastifyRequest): ParsedQuery {
  const query = parsed.get(request);
  if (query === undefined) throw new TypeError(`no query was read for ${request.method} ${request.url}`);
  return query;
}

/** The typed query of a request that can only be one of `operations` (the parameters they all take). */
export function queryFor<O extends Operation>(request: FastifyRequest, ...operations: O[]): QueryOf<O> {
  const read = queryOf(request);
  if (!(operations as Operation[]).includes(read.operation))
    throw new TypeError(`the query was read for ${read.operation}, not ${operations.join(" or ")}`);
  return read.query as QueryOf<O>;
}
