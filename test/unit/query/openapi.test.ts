import { describe, expect, it } from "vitest";
import { groupVersions } from "../../../sdk/schema/openapi";
import { OPERATIONS, type Operation, parametersOf, QUERY_PARAMETERS } from "../../../server/http/query";
import { openApiV2Document, openApiV3Document } from "../../../server/routes/openapi";

/** Which operations of the table each OpenAPI operation (by its `x-kubernetes-action`) serves. */
const SERVES: Record<string, readonly Operation[]> = {
  list: ["list", "watch"],
  post: ["create"],
  deletecollection: ["deletecollection"],
  get: ["get"],
  put: ["replace"],
  patch: ["patch", "apply"],
  delete: ["delete"],
};

interface Listed {
  name: string;
  in: string;
  description: string;
  type?: string;
  schema?: { type: string };
}

const documents = [
  ...groupVersions().map(
    (groupVersion) => [`v3 ${groupVersion.group}`, openApiV3Document(groupVersion)] as const,
  ),
  ["v2", openApiV2Document()] as const,
];

describe("the OpenAPI documents list exactly the table of query parameters", () => {
  it("maps every operation of the table to an OpenAPI operation", () => {
    expect([...Object.values(SERVES).flat()].sort()).toEqual([...OPERATIONS].sort());
  });

  it.each(documents)("%s", (_name, document) => {
    const paths = document.paths as Record<
      string,
      Record<string, { parameters?: Listed[] } & Record<string, unknown>>
    >;
    const seen = new Set<string>();
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (method === "parameters") continue;
        const action = operation["x-kubernetes-action"] as string;
        const served = SERVES[action];
        expect(served, `${method} ${path}`).toBeDefined();
        seen.add(action);
        const listed = (operation.parameters ?? []).filter((parameter) => parameter.in === "query");
        // Table -> document: every parameter the operations take, once each.
        const expected = [...new Set((served ?? []).flatMap(parametersOf))];
        expect(listed.map((parameter) => parameter.name).sort(), `${method} ${path}`).toEqual(
          expected.sort(),
        );
        // Document -> table: each listed parameter with the table's type and description.
        for (const parameter of listed) {
          const entry = QUERY_PARAMETERS[parameter.name as keyof typeof QUERY_PARAMETERS];
          expect(entry, parameter.name).toBeDefined();
          expect(parameter.description).toBe(entry.description);
          expect(parameter.type ?? parameter.schema?.type).toBe(entry.type);
        }
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(SERVES).sort());
  });
});
