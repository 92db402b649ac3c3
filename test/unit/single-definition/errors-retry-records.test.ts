// One definition of the Status body and the reason -> code table (sdk/errors), of the retry policy and its
// Retry-After parser (sdk/shared/retry.ts), of "is a JSON object" (sdk/shared/records.ts), of message
// redaction (sdk/errors/redact.ts) and of the metadata syntax checks (sdk/schema/metadata.ts). The checks
// read the syntax tree of every source file of sdk/, controller/, server/, provider/ and policies/, so an import or a
// re-export never counts as a declaration, and a comment never counts as code. Each detector is also shown
// to catch the second copies this repository used to have (`FORMER_COPIES`).
import ts from "typescript";
import { describe, expect, it, test } from "vitest";
import * as client from "../../../sdk/client";
import * as errors from "../../../sdk/errors";
import {
  DETECTORS,
  declarations,
  HOME,
  METADATA_CHECKS,
  nodes,
  SOURCES,
  type Source,
  STATUS_TYPES,
} from "./detectors";

describe("the source tree declares each of these once", () => {
  it.each(Object.entries(DETECTORS))("%s: nothing outside its home module", (_, detect) => {
    expect(SOURCES.flatMap(detect)).toEqual([]);
  });

  it("finds the home modules (the scan is not looking at nothing)", () => {
    const files = new Set(SOURCES.map(({ file }) => file));
    for (const home of Object.values(HOME)) expect(files).toContain(home);
    expect(SOURCES.length).toBeGreaterThan(50);
  });
});

test("the home modules hold what the others import", () => {
  const declared = (file: string) =>
    new Set(declarations(SOURCES.find((source) => source.file === file) as Source).map(({ name }) => name));
  for (const name of STATUS_TYPES) expect(declared(HOME.status)).toContain(name);
  for (const name of ["REASONS", "failureStatus", "successStatus", "apiErrorFromResponse"])
    expect(declared(HOME.reasons)).toContain(name);
  for (const name of ["parseRetryAfter", "retryWait", "backoff", "backoffStep", "withOverrides", "realSleep"])
    expect(declared(HOME.retry)).toContain(name);
  expect(declared(HOME.records)).toContain("isRecord");
  for (const name of ["redact", "redactValues"]) expect(declared(HOME.redact)).toContain(name);
});

test("the client transport, the builder's registry calls and the controller's queues use the one retry policy", () => {
  const importers = SOURCES.filter(({ tree }) =>
    tree.statements.some(
      (statement) =>
        ts.isImportDeclaration(statement) &&
        ts.isStringLiteral(statement.moduleSpecifier) &&
        /(^|\/)shared\/retry$/.test(statement.moduleSpecifier.text),
    ),
  ).map(({ file }) => file);
  expect(importers).toEqual(
    expect.arrayContaining([
      "sdk/client/retry.ts",
      "sdk/client/transport.ts",
      "builder/oci/http.ts",
      "controller/queue.ts",
      "controller/lanes.ts",
    ]),
  );
});

test("the admission envelope maps the sdk's metadata issues and checks no syntax itself", () => {
  const envelope = SOURCES.find(({ file }) => file === "admission/envelope.ts") as Source;
  const called = nodes(envelope)
    .filter(ts.isCallExpression)
    .map((call) => call.expression.getText());
  expect(called).toContain("metadataIssues");
  expect(called.filter((name) => METADATA_CHECKS.has(name) && name !== "metadataIssues")).toEqual([]);
});

test("the client re-exports sdk/errors in one statement, and so exports every error", () => {
  const index = SOURCES.find(({ file }) => file === "sdk/client/index.ts") as Source;
  const fromErrors = index.tree.statements.filter(
    (statement): statement is ts.ExportDeclaration =>
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      /errors(\/index)?$/.test(statement.moduleSpecifier.text),
  );
  expect(fromErrors).toHaveLength(1);
  expect(fromErrors[0]?.exportClause).toBeUndefined();
  const runtime = Object.keys(errors);
  expect(runtime.length).toBeGreaterThanOrEqual(20);
  for (const name of runtime)
    expect((client as Record<string, unknown>)[name]).toBe((errors as Record<string, unknown>)[name]);
});
