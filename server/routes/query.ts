import { badRequest } from "../errors";

export type Query = Record<string, string | string[] | undefined>;

/** One value of a query parameter; repeating it is ambiguous, so it is refused. */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value))
    throw badRequest(`${name}: give the query parameter once, not ${value.length} times`);
  return value;
}
