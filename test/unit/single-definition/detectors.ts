import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { REASONS } from "../../../sdk/errors";

// The syntax-tree scan behind the single-definition tests: every source file of the folders that hold code,
// parsed, and one detector per thing that must be declared once, each answering what it finds outside that
// thing's home module.

const ROOT = join(__dirname, "../../..");

export const HOME = {
  status: "sdk/errors/status.ts",
  reasons: "sdk/errors/reasons.ts",
  errorClasses: "sdk/errors/http-errors.ts",
  redact: "sdk/errors/redact.ts",
  retry: "sdk/shared/retry.ts",
  records: "sdk/shared/records.ts",
  metadata: "sdk/schema/metadata.ts",
} as const;

export interface Source {
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

export function parse(file: string, text: string): Source {
  return { file, tree: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) };
}

export const SOURCES: Source[] = [
  "sdk",
  "admission",
  "builder",
  "controller",
  "server",
  "webhook",
  "provider",
  "policies",
]
  .flatMap(sourceFiles)
  .map((file) => parse(file, readFileSync(join(ROOT, file), "utf8")));

// Each detector walks every file and prints its functions: the walks and the printed code are kept, so the
// scan of the whole tree reads each once (printing is most of its time).
const walked = new WeakMap<Source, ts.Node[]>();
const printed = new WeakMap<ts.Node, string>();
const printer = ts.createPrinter({ removeComments: true });

export function nodes(source: Source): ts.Node[] {
  const known = walked.get(source);
  if (known) return known;
  const all: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    all.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source.tree);
  walked.set(source, all);
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
export function declarations(source: Source): Declaration[] {
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

/**
 * Whether a node's text, comments included, has every word: what its code must have to match, checked
 * before printing the code (the printer keeps every token, so nothing that would match is passed over).
 */
function mentions(node: ts.Node, ...words: string[]): boolean {
  const text = node.getText();
  return words.every((word) => text.includes(word));
}

/** A node's code without its comments. */
function code(node: ts.Node): string {
  let text = printed.get(node);
  if (text === undefined) {
    text = printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile());
    printed.set(node, text);
  }
  return text;
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
    .filter((node) => mentions(node, "typeof", "null", "isArray") && RECORD_CHECK.test(code(node)))
    .map((node) => `${source.file}: tests for a JSON object by hand (${code(node).split("\n")[0]})`);
  return [...new Set([...named, ...bodies])];
}

export const STATUS_TYPES = new Set(["Status", "StatusCause", "StatusDetails", "FailureStatus"]);

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
      if (!mentions(node, "Date.parse", "\\d+")) return false;
      const text = code(node);
      return text.includes("Date.parse(") && text.includes("\\d+");
    })
    .map(() => `${source.file}: parses delta-seconds or an HTTP-date`);
  const backoffs = nodes(source)
    .filter(isFunctionLike)
    .filter((node) => {
      if (!mentions(node, "**")) return false;
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

export const METADATA_CHECKS = new Set([
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

export const DETECTORS = {
  recordChecks,
  statusTypes,
  reasonCodePairs,
  retryPolicies,
  redactions,
  metadataChecks,
};
