import { describe, expect, it } from "vitest";
import { ApiError, type FailureStatus } from "../../../sdk/errors";
import {
  OPERATIONS,
  type Operation,
  type ParameterName,
  parametersOf,
  parseQuery,
  QUERY_PARAMETERS,
  type RawQuery,
} from "../../../server/http/query";

// The cases are made from the table, so a new parameter or operation is covered without a new test.
const NAMES = Object.keys(QUERY_PARAMETERS) as ParameterName[];
const taken = OPERATIONS.flatMap((operation) =>
  parametersOf(operation).map((name) => [operation, name] as const),
);
const refused = OPERATIONS.flatMap((operation) =>
  [...NAMES.filter((name) => !parametersOf(operation).includes(name)), "notAParameter"].map(
    (name) => [operation, name] as const,
  ),
);

/** Malformed values by type: what no integer or boolean parameter may take. */
const BAD_BY_TYPE = { integer: ["x", "-1", "1.5"], boolean: ["maybe", "yes"] };

/**
 * Malformed values of the string parameters, by hand (a string has no malformed value in general).
 * `undefined`: no value is malformed when read; it is checked where it is used (a continue token against
 * the list, a field manager's length and characters as PatchOptions, 422).
 */
const BAD_STRINGS: Record<string, string | undefined> = {
  labelSelector: "tier in (a",
  fieldSelector: "spec.provider=x",
  continue: undefined,
  resourceVersion: "abc",
  resourceVersionMatch: "Sometimes",
  includeObject: "All",
  fieldValidation: "Loud",
  fieldManager: undefined,
  dryRun: "None",
  propagationPolicy: "Sideways",
};

/** The Status the server answers a refused query with. */
function refusal(operation: Operation, query: RawQuery): FailureStatus {
  try {
    parseQuery(operation, query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.reason).toBe("BadRequest");
    expect(apiError.code).toBe(400);
    return apiError.status;
  }
  throw new Error(`${operation} took ${JSON.stringify(query)}`);
}

describe("the table of query parameters", () => {
  it("names operations that exist, and every operation takes something", () => {
    for (const name of NAMES) {
      expect(QUERY_PARAMETERS[name].operations.length, name).toBeGreaterThan(0);
      for (const operation of QUERY_PARAMETERS[name].operations) expect(OPERATIONS).toContain(operation);
    }
    for (const operation of OPERATIONS) expect(parametersOf(operation).length, operation).toBeGreaterThan(0);
  });

  it.each(refused)("%s refuses %s with a 400 naming it and what is supported", (operation, name) => {
    const { message } = refusal(operation, { [name]: "" });
    expect(message).toBe(
      `unsupported query parameter ${name}: only ${parametersOf(operation).join(", ")} are supported here`,
    );
  });

  it.each(taken)("%s takes %s, absent or empty", (operation, name) => {
    expect(Object.keys(parseQuery(operation, {}))).toContain(name);
    expect(() => parseQuery(operation, { [name]: "" })).not.toThrow();
  });

  it.each(taken.filter(([, name]) => !("repeatable" in QUERY_PARAMETERS[name])))(
    "%s refuses %s given twice",
    (operation, name) => {
      const { message } = refusal(operation, { [name]: ["1", "1"] });
      expect(message).toBe(`${name}: give the query parameter once, not 2 times`);
    },
  );

  it.each(taken)("%s refuses a malformed %s with a 400 naming it", (operation, name) => {
    const { type } = QUERY_PARAMETERS[name];
    expect(type === "string" ? Object.keys(BAD_STRINGS) : Object.keys(BAD_BY_TYPE), name).toContain(
      type === "string" ? name : type,
    );
    const bad = type === "string" ? [BAD_STRINGS[name]] : BAD_BY_TYPE[type];
    for (const value of bad) {
      if (value === undefined) continue;
      expect(refusal(operation, { [name]: value }).message, value).toMatch(new RegExp(`^${name}: `));
    }
  });

  it("reads values into the typed query, with Kubernetes' defaults", () => {
    expect(parseQuery("list", {})).toMatchObject({
      watch: false,
      limit: undefined,
      includeObject: "Metadata",
    });
    expect(parseQuery("list", { limit: "0", timeoutSeconds: "0" })).toMatchObject({
      limit: undefined,
      timeoutSeconds: undefined,
    });
    expect(
      parseQuery("watch", { watch: "1", allowWatchBookmarks: "true", timeoutSeconds: "30" }),
    ).toMatchObject({ watch: true, allowWatchBookmarks: true, timeoutSeconds: 30 });
    expect(parseQuery("create", {})).toEqual({
      fieldValidation: "Warn",
      fieldManager: undefined,
      dryRun: false,
    });
    expect(parseQuery("apply", { dryRun: ["All", "All"], force: "true" })).toMatchObject({
      dryRun: true,
      force: true,
    });
    expect(parseQuery("delete", { gracePeriodSeconds: "0", orphanDependents: "false" })).toMatchObject({
      gracePeriodSeconds: 0,
      orphanDependents: false,
    });
  });

  it("refuses a dryRun list with any value but All", () => {
    expect(refusal("delete", { dryRun: ["All", ""] }).message).toBe(
      'dryRun: Unsupported value: "": supported values: "All"',
    );
  });
});
