import { badRequest } from "../errors";

export type Query = Record<string, string | string[] | undefined>;

/** One value of a query parameter; repeating it is ambiguous, so it is refused. */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value))
    throw badRequest(`${name}: give the query parameter once, not ${value.length} times`);
  return value;
}

/**
 * A hook that refuses the query parameters an operation does not support (400). Ignoring them would change
 * what the request means: a `fieldSelector` or a misspelt `labelSelector` would widen a delete-collection to
 * every object, and a `dryRun` write would really be written.
 */
export function onlyParameters(...names: string[]) {
  const supported = new Set(names);
  return async (request: { query: unknown }) => {
    const unsupported = Object.keys((request.query ?? {}) as Query).filter((name) => !supported.has(name));
    if (unsupported.length > 0) {
      const here =
        names.length > 0 ? `only ${names.join(", ")} ${names.length > 1 ? "are" : "is"}` : "none is";
      throw badRequest(`unsupported query parameter ${unsupported.join(", ")}: ${here} supported here`);
    }
  };
}

/** The query parameters of a create and an update (PUT): what the server does with the body, and who wrote it. */
export const WRITE_PARAMETERS = ["fieldValidation", "fieldManager", "dryRun"] as const;

/** The query parameters of a merge or JSON patch (an apply patch has its own: `APPLY_PARAMETERS`). */
export const PATCH_PARAMETERS = ["fieldValidation", "fieldManager", "force", "dryRun"] as const;
