// One definition of the Status body and the reason -> code table (sdk/errors), of the retry policy and its
// Retry-After parser (sdk/shared/retry.ts), of "is a JSON object" (sdk/shared/records.ts), of message
// redaction (sdk/errors/redact.ts) and of the metadata syntax checks (sdk/schema/metadata.ts). The checks
// read the syntax tree of every source file of sdk/, controller/, server/, provider/ and policies/, so an import or a
// re-export never counts as a declaration, and a comment never counts as code. Each detector is also shown
// to catch the second copies this repository used to have (`FORMER_COPIES`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it, test } from "vitest";
import * as client from "../../../sdk/client";
import * as errors from "../../../sdk/errors";
import { REASONS } from "../../../sdk/errors";

const ROOT = join(__dirname, "../../..");

const HOME = {
  status: "sdk/errors/status.ts",
  reasons: "sdk/errors/reasons.ts",
  errorClasses: "sdk/errors/http-errors.ts",
  redact: "sdk/errors/redact.ts",
  retry: "sdk/shared/retry.ts",
  records: "sdk/shared/records.ts",
  metadata: "sdk/schema/metadata.ts",
} as const;

interface Source {
  file: string;
  tree: ts.SourceFile;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function parse(file: string, text: string): Source {
  return { file, tree: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) };
}

const SOURCES: Source[] = ["sdk", "builder", "controller", "server", "provider", "policies"]
  .flatMap(sourceFiles)
  .map((file) => parse(file, readFileSync(join(ROOT, file), "utf8")));

function nodes(source: Source): ts.Node[] {
  const all: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    all.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source.tree);
  return all;
}

type FunctionLike = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isMethodDeclaration(node)
  );
}

interface Declaration {
  name: string;
  kind: "function" | "type" | "class" | "value";
}

/** Names this file declares (functions, function-valued constants, classes, interfaces, type aliases, constants). */
function declarations(source: Source): Declaration[] {
  return nodes(source).flatMap((node): Declaration[] => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name)
      return [{ name: node.name.getText(), kind: "function" as const }];
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node))
      return [{ name: node.name.text, kind: "type" as const }];
    if (ts.isClassDeclaration(node) && node.name) return [{ name: node.name.text, kind: "class" as const }];
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      const init = node.initializer;
      const kind = init && isFunctionLike(init) ? ("function" as const) : ("value" as const);
      return [{ name: node.name.text, kind }];
    }
    return [];
  });
}

/** A node's code without its comments. */
function code(node: ts.Node): string {
  const printer = ts.createPrinter({ removeComments: true });
  return printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile());
}

// --- the detectors: each returns "file: what" for every second definition it finds -----------------------

const RECORD_CHECK = /typeof (\w+) === "object" && \1 !== null && !Array\.isArray\(\1\)/;

function recordChecks(source: Source): string[] {
  if (source.file === HOME.records) return [];
  const named = declarations(source)
    .filter(
      ({ name, kind }) => kind === "function" && /^is(Record|PlainObject|Object|JsonObject)$/.test(name),
    )
    .map(({ name }) => `${source.file}: declares ${name}`);
  const bodies = nodes(source)
    .filter(isFunctionLike)
    .filter((node) => RECORD_CHECK.test(code(node)))
    .map((node) => `${source.file}: tests for a JSON object by hand (${code(node).split("\n")[0]})`);
  return [...new Set([...named, ...bodies])];
}

const STATUS_TYPES = new Set(["Status", "StatusCause", "StatusDetails", "FailureStatus"]);

function statusTypes(source: Source): string[] {
  if (source.file === HOME.status) return [];
  const types = declarations(source)
    .filter(({ name, kind }) => kind === "type" && STATUS_TYPES.has(name))
    .map(({ name }) => `${source.file}: declares ${name}`);
  // A Status body written out: only sdk/errors builds them (toStatus, failureStatus, successStatus).
  const bodies =
    source.file === HOME.reasons
      ? []
      : nodes(source)
          .filter(ts.isObjectLiteralExpression)
          .filter((literal) =>
            literal.properties.some(
              (property) =>
                ts.isPropertyAssignment(property) &&
                property.name.getText() === "kind" &&
                ts.isStringLiteral(property.initializer) &&
                property.initializer.text === "Status",
            ),
          )
          .map(() => `${source.file}: builds a Status body`);
  return [...types, ...bodies];
}

const CODE_OF: ReadonlyMap<string, number> = new Map(
  Object.entries(REASONS).map(([reason, { code }]) => [reason, code]),
);
const ERROR_CLASS_NAMES: ReadonlySet<string> = new Set(Object.values(REASONS).map(({ error }) => error.name));

/** Reason names and numbers within `depth` levels of a node. */
function near(node: ts.Node, depth: number): { reasons: Set<string>; numbers: Set<number> } {
  const reasons = new Set<string>();
  const numbers = new Set<number>();
  const visit = (current: ts.Node, level: number) => {
    if (ts.isNumericLiteral(current)) numbers.add(Number(current.text));
    if ((ts.isStringLiteral(current) || ts.isIdentifier(current)) && CODE_OF.has(current.text))
      reasons.add(current.text);
    if (level < depth) ts.forEachChild(current, (child) => visit(child, level + 1));
  };
  visit(node, 0);
  return { reasons, numbers };
}

/** A reason written next to its own HTTP code: a table entry, a lookup, a comparison or a case. */
function reasonCodePairs(source: Source): string[] {
  if (source.file === HOME.reasons) return [];
  const pairing = nodes(source).filter(
    (node) =>
      ts.isPropertyAssignment(node) ||
      ts.isArrayLiteralExpression(node) ||
      ts.isCaseClause(node) ||
      ts.isConditionalExpression(node) ||
      ts.isCallExpression(node) ||
      (ts.isBinaryExpression(node) &&
        [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken].includes(node.operatorToken.kind)),
  );
  const found = pairing.flatMap((node) => {
    const { reasons, numbers } = near(node, 4);
    return [...reasons]
      .filter((reason) => numbers.has(CODE_OF.get(reason) ?? -1))
      .map((reason) => `${source.file}: pairs ${reason} with ${CODE_OF.get(reason)}`);
  });
  const classes = declarations(source)
    .filter(({ name, kind }) => kind === "class" && ERROR_CLASS_NAMES.has(name))
    .filter(() => source.file !== HOME.errorClasses)
    .map(({ name }) => `${source.file}: declares ${name}`);
  return [...new Set([...found, ...classes])];
}

/** A Retry-After parser (delta-seconds and HTTP-date) or an exponential backoff, jittered or capped. */
function retryPolicies(source: Source): string[] {
  if (source.file === HOME.retry) return [];
  const named = declarations(source)
    .filter(({ name, kind }) => kind === "function" && /retry-?after/i.test(name))
    .map(({ name }) => `${source.file}: declares ${name}`);
  const parsers = nodes(source)
    .filter(isFunctionLike)
    .filter((node) => {
      const text = code(node);
      return text.includes("Date.parse(") && text.includes("\\d+");
    })
    .map(() => `${source.file}: parses delta-seconds or an HTTP-date`);
  const backoffs = nodes(source)
    .filter(isFunctionLike)
    .filter((node) => {
      const text = code(node);
      return /\b2 \*\* /.test(text) && /random\(\)|Math\.min\(/.test(text);
    })
    .map(() => `${source.file}: computes an exponential backoff`);
  return [...new Set([...named, ...parsers, ...backoffs])];
}

/** Secrets replaced in messages: the `<redacted>` marker belongs to the one redaction function. */
function redactions(source: Source): string[] {
  if (source.file === HOME.redact) return [];
  return nodes(source)
    .filter((node) => ts.isStringLiteralLike(node) && node.text.includes("<redacted>"))
    .map(() => `${source.file}: writes <redacted> itself`);
}

const METADATA_CHECKS = new Set([
  "nameProblem",
  "keyProblem",
  "labelValueProblem",
  "isObjectName",
  "metadataIssues",
  "metadataProblems",
]);
/** The DNS-1123 label and the qualified-name character classes of apimachinery's validation. */
const METADATA_SYNTAX = /\[a-z0-9\]\(\?:\[-a-z0-9\]\*|\[-A-Za-z0-9_\.\]/;

function metadataChecks(source: Source): string[] {
  if (source.file === HOME.metadata) return [];
  const named = declarations(source)
    .filter(({ name }) => METADATA_CHECKS.has(name))
    .map(({ name }) => `${source.file}: declares ${name}`);
  const syntax = nodes(source)
    .filter(
      (node) =>
        (ts.isRegularExpressionLiteral(node) || ts.isStringLiteralLike(node)) &&
        METADATA_SYNTAX.test(node.getText()),
    )
    .map(() => `${source.file}: spells a metadata syntax pattern`);
  return [...new Set([...named, ...syntax])];
}

const DETECTORS = { recordChecks, statusTypes, reasonCodePairs, retryPolicies, redactions, metadataChecks };

// --- the repository ----------------------------------------------------------------------------------------

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
  const envelope = SOURCES.find(({ file }) => file === "server/admission/envelope.ts") as Source;
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

// --- the detectors catch what was written twice before, and pass over imports -------------------------------

/** Excerpts of the second copies this repository had, and where they were. */
const FORMER_COPIES: { detector: keyof typeof DETECTORS; file: string; text: string }[] = [
  {
    detector: "reasonCodePairs",
    file: "server/errors.ts",
    text: `export const REASONS = { BadRequest: 400, NotFound: 404, AlreadyExists: 409, Conflict: 409 } as const;`,
  },
  {
    detector: "reasonCodePairs",
    file: "sdk/errors/http-errors.ts",
    text: `const BY_CODE = new Map([[404, { reason: "NotFound", type: NotFoundError }]]);`,
  },
  {
    detector: "reasonCodePairs",
    file: "sdk/errors/http-errors.ts",
    text: `function f(statusCode: number, status: { reason: string }) {
      if (statusCode === 409 && status.reason === "AlreadyExists") return 1;
    }`,
  },
  {
    detector: "reasonCodePairs",
    file: "server/http/errors.ts",
    text: `export class NotFoundError extends Error {}`,
  },
  {
    detector: "statusTypes",
    file: "server/errors.ts",
    text: `export interface Status { kind: "Status"; code: number }
      export interface StatusCause { reason: string; message: string; field?: string }`,
  },
  {
    detector: "statusTypes",
    file: "server/errors.ts",
    text: `export function failureStatus(reason: string, message: string) {
      return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code: 500 };
    }`,
  },
  {
    detector: "retryPolicies",
    file: "builder/oci/retry.ts",
    text: `export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
      if (value === undefined || value.trim() === "") return undefined;
      if (/^\\d+$/.test(value.trim())) return Number(value) * 1000;
      const date = Date.parse(value);
      return Number.isNaN(date) ? undefined : Math.max(0, date - now);
    }`,
  },
  {
    detector: "retryPolicies",
    file: "sdk/client/retry.ts",
    text: `function hint(header: string, now: number): number {
      return /^\\d+$/.test(header) ? Number(header) * 1000 : Date.parse(header) - now;
    }`,
  },
  {
    detector: "retryPolicies",
    file: "builder/oci/retry.ts",
    text: `export function retryDelay(retry: number): number {
      const ceiling = Math.min(10_000, 250 * 2 ** retry);
      return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    }`,
  },
  {
    detector: "retryPolicies",
    file: "controller/queue.ts",
    text: `class WorkQueue {
      retryLater(key: string): number {
        const failures = this.failures.get(key) ?? 0;
        return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** failures);
      }
    }`,
  },
  {
    detector: "retryPolicies",
    file: "controller/lanes.ts",
    text: `const settle = (host: Host) => Math.min(this.maxMs, this.baseMs * 2 ** (host.failures - 1));`,
  },
  {
    detector: "recordChecks",
    file: "server/records.ts",
    text: `export function isRecord(value: unknown): value is Record<string, unknown> {
      return typeof value === "object" && value !== null && !Array.isArray(value);
    }`,
  },
  {
    detector: "recordChecks",
    file: "policies/resources.ts",
    text: `const looksLikeObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);`,
  },
  {
    detector: "redactions",
    file: "builder/oci/failure.ts",
    text: `const REDACTED = "<redacted>";`,
  },
  {
    detector: "metadataChecks",
    file: "server/admission/envelope.ts",
    text: `const DNS1123_LABEL = "[a-z0-9](?:[-a-z0-9]*[a-z0-9])?";
      function nameProblem(name: string) { return name; }`,
  },
];

/** What a file may do without declaring anything again. */
const IMPORTS_ONLY = `
  import { isRecord } from "../records";
  import { isRecord as isJsonObject } from "../../sdk/shared/records";
  import { parseRetryAfter, retryWait } from "../../sdk/shared/retry";
  import { REASONS, type Status, type StatusCause } from "../../sdk/errors";
  import { redact } from "../../sdk/errors/redact";
  import { metadataIssues, nameProblem } from "../../sdk/schema/metadata";
  export { isRecord } from "../sdk/shared/records";
  export type { Status, StatusCause, StatusDetails } from "../sdk/errors/status";
  export { failureStatus, successStatus } from "../sdk/errors/reasons";
  // A comment may say that AlreadyExists is 409, or quote "<redacted>" and Retry-After: 120.
  const conflictCode = REASONS.AlreadyExists.code;
  const wait = retryWait(0, "3", policy);
  const problems = metadataIssues({ name: "x" }).map((issue) => issue.message);
  const cleaned = redact(message, secrets);
`;

describe("the detectors", () => {
  it.each(FORMER_COPIES.map((copy) => [copy.detector, copy.file, copy] as const))(
    "%s finds the former copy in %s",
    (_, __, { detector, file, text }) => {
      expect(DETECTORS[detector](parse(file, text))).not.toEqual([]);
    },
  );

  it.each(Object.keys(DETECTORS))("%s passes over imports, re-exports, uses and comments", (name) => {
    const detect = DETECTORS[name as keyof typeof DETECTORS];
    expect(detect(parse("server/example.ts", IMPORTS_ONLY))).toEqual([]);
  });
});
