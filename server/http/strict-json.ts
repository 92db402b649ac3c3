// momoa (by the author of ESLint; it is the JSON parser of @eslint/json) gives a JSON syntax tree that
// keeps every member of an object, duplicates included, with each value's source range: what finding
// duplicate keys and reading a number's literal text needs, without a tokenizer of our own. JSON.parse
// (through secure-json-parse) still builds the value; the tree is only read for the diagnostics.
import { type ElementNode, parse as parseJsonTree, type ValueNode } from "@humanwhocodes/momoa";
import type { FastifyReply, FastifyRequest } from "fastify";
import { KIND_NAMES, KINDS, type KindName, SECRET_FIELDS } from "../../sdk/schema";
import { integerFieldFix } from "../../sdk/schema/rules/ranges";
import { formatPath, type PathSegment } from "../../sdk/schema/violation";
import { parseFieldValidation } from "../admission";
import { type ApiError, badRequest, invalid, type StatusCause } from "../errors";
import { isRecord } from "../records";
import { type Query, single } from "../routes/query";
import { shared } from "./shared";
import { addWarnings } from "./warnings";

/**
 * Strict JSON decoding, as the Kubernetes API server does it: what JSON.parse would silently lose is
 * refused or named instead of stored.
 *
 * - Invalid UTF-8: 400 (`decodeUtf8`, used by the body parser), never replaced by U+FFFD.
 * - Duplicate keys (JSON.parse keeps the last): with `fieldValidation=Strict` 400
 *   `strict decoding error: duplicate field "spec.x"`; with Warn (the default) one Warning each and the
 *   last value wins; with Ignore nothing.
 * - A number literal that parses to ±Infinity (`1e400`): always 422, whatever fieldValidation says,
 *   since JSON cannot carry Infinity and it would be stored and returned as null.
 * - An integer literal (no fraction, no exponent) beyond ±Number.MAX_SAFE_INTEGER, which a 64-bit float
 *   cannot keep exactly (`9007199254740993` is read as 9007199254740992): Strict 422, Warn a Warning
 *   naming the value it is read as, Ignore nothing. `1e300` or `0.1` are not integer literals and pass.
 *
 * Paths are JSON paths of the body (`spec.template.spec.backend.port`); in a JSON patch they are paths
 * inside the patch document (`[0].value.spec.x`). Only writes (POST, PUT, PATCH) to the API's objects
 * are checked; the body parser records what it found and a preHandler hook applies fieldValidation.
 */
export const strictJson = shared(async (fastify) => {
  fastify.addHook("preHandler", async (request, reply) => {
    const diagnostics = recorded.get(request);
    if (diagnostics === undefined || !WRITE_METHODS.has(request.method)) return;
    const kind = kindOfRoute(request.routeOptions.url);
    if (kind === undefined) return;
    applyDiagnostics(diagnostics, request, reply, kind);
  });
});

export interface JsonDiagnostics {
  /** Paths of members that appear more than once in their object, once each. */
  duplicates: string[];
  nonFinite: LossyNumber[];
  unsafeIntegers: LossyNumber[];
}

export interface LossyNumber {
  path: string;
  /** The literal as written, shortened for messages; undefined under a secret field's name. */
  literal: string | undefined;
  /** What JSON.parse makes of it. */
  value: number;
}

const WRITE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH"]);
const recorded = new WeakMap<FastifyRequest, JsonDiagnostics>();

/** Called by the body parser with the text it parsed; records only when something was found. */
export function recordJsonDiagnostics(request: FastifyRequest, text: string): void {
  const diagnostics = scanJson(text);
  const found =
    diagnostics.duplicates.length + diagnostics.nonFinite.length + diagnostics.unsafeIntegers.length;
  if (found > 0) recorded.set(request, diagnostics);
}

/**
 * The body as text, refusing invalid UTF-8 (400) instead of replacing it with U+FFFD. A leading BOM is
 * dropped, as JSON parsers may.
 */
export function decodeUtf8(body: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw badRequest(`the request body is not valid UTF-8 (at byte ${firstInvalidByte(body)})`);
  }
}

/**
 * The 0-based offset of the first ill-formed byte sequence. The non-fatal decoder replaces each one with
 * U+FFFD, so the first U+FFFD that the body did not spell as EF BF BD marks it; the bytes before it are
 * well-formed, so their length is the UTF-8 length of the text before it.
 */
function firstInvalidByte(body: Buffer): number {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(body);
  let charIndex = 0;
  let byteOffset = 0;
  for (let found = text.indexOf("\uFFFD"); found !== -1; found = text.indexOf("\uFFFD", found + 1)) {
    byteOffset += Buffer.byteLength(text.slice(charIndex, found), "utf8");
    charIndex = found;
    const spelled =
      body[byteOffset] === 0xef && body[byteOffset + 1] === 0xbf && body[byteOffset + 2] === 0xbd;
    if (!spelled) return byteOffset;
  }
  return byteOffset;
}

/** Duplicate keys and lossy numbers of a text JSON.parse accepted. */
export function scanJson(text: string): JsonDiagnostics {
  const diagnostics: JsonDiagnostics = { duplicates: [], nonFinite: [], unsafeIntegers: [] };
  const root = parseJsonTree(text, { mode: "json" }).body;
  // Iterative, so the walk adds no recursion of its own (the parser succeeded, so the depth is bounded);
  // children are pushed last first, so findings come out in document order.
  const stack: { node: ValueNode; path: PathSegment[] }[] = [{ node: root, path: [] }];
  const duplicates = new Set<string>();
  while (stack.length > 0) {
    const { node, path } = stack.pop() as { node: ValueNode; path: PathSegment[] };
    if (node.type === "Object") {
      const seen = new Set<string>();
      const children: { node: ValueNode; path: PathSegment[] }[] = [];
      for (const member of node.members) {
        const name = member.name.type === "String" ? member.name.value : member.name.name;
        const memberPath = [...path, name];
        if (seen.has(name)) duplicates.add(formatPath(memberPath));
        seen.add(name);
        children.push({ node: member.value, path: memberPath });
      }
      stack.push(...children.reverse());
    } else if (node.type === "Array") {
      for (let index = node.elements.length - 1; index >= 0; index--) {
        stack.push({ node: (node.elements[index] as ElementNode).value, path: [...path, index] });
      }
    } else if (node.type === "Number") {
      const source = text.slice(node.loc.start.offset, node.loc.end.offset);
      const lossy = { path: formatPath(path), literal: literalFor(source, path), value: node.value };
      if (!Number.isFinite(node.value)) diagnostics.nonFinite.push(lossy);
      else if (INTEGER_LITERAL.test(source) && !Number.isSafeInteger(node.value)) {
        diagnostics.unsafeIntegers.push(lossy);
      }
    }
  }
  diagnostics.duplicates = [...duplicates];
  return diagnostics;
}

const INTEGER_LITERAL = /^-?\d+$/;
const SECRET_NAMES: ReadonlySet<PathSegment> = new Set(SECRET_FIELDS.map(({ field }) => field));
const MAX_LITERAL = 40;

/** The literal for a message: never under a secret field's name, and a pasted wall of digits is cut. */
function literalFor(source: string, path: readonly PathSegment[]): string | undefined {
  if (SECRET_NAMES.has(path[path.length - 1] as PathSegment)) return undefined;
  if (source.length <= MAX_LITERAL) return source;
  return `${source.slice(0, 24)}...${source.slice(-6)} (${source.length} characters)`;
}

function applyDiagnostics(
  { duplicates, nonFinite, unsafeIntegers }: JsonDiagnostics,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: KindName,
): void {
  const fieldValidation = parseFieldValidation(single(request.query as Query, "fieldValidation"));
  if (fieldValidation === "Strict" && duplicates.length > 0) {
    throw badRequest(
      `strict decoding error: ${duplicates.map((path) => `duplicate field "${path}"`).join(", ")}`,
    );
  }
  if (fieldValidation === "Warn") {
    addWarnings(reply, [
      ...duplicates.map((path) => `duplicate field "${path}"`),
      ...unsafeIntegers.map(unsafeIntegerWarning),
    ]);
  }
  const causes = [
    ...nonFinite.map(nonFiniteCause),
    ...(fieldValidation === "Strict" ? unsafeIntegers.map(unsafeIntegerCause) : []),
  ];
  if (causes.length > 0) throw invalidBody(kind, request, causes);
}

function nonFiniteCause({ path, literal }: LossyNumber): StatusCause {
  const fix =
    integerFieldFix(path) ??
    "use a number of magnitude below 1.7976931348623157e308 (numbers are 64-bit floating point here) or a string";
  return {
    reason: "FieldValueInvalid",
    field: path,
    message: `${where(path)}: ${literal ?? "the value"} is not a finite number; ${fix}`,
  };
}

function unsafeIntegerCause({ path, literal }: LossyNumber): StatusCause {
  return {
    reason: "FieldValueInvalid",
    field: path,
    message:
      `${where(path)}: ${literal ?? "the value"} cannot be represented exactly (integers beyond ±9007199254740991 lose ` +
      "precision); use a smaller number or a string",
  };
}

/** ASCII only: Warning headers carry printable ASCII. */
function unsafeIntegerWarning({ path, literal, value }: LossyNumber): string {
  const readAs = literal === undefined ? "" : ` and is read as ${value}`;
  return (
    `${where(path)}: ${literal ?? "the value"} cannot be represented exactly${readAs}; use an integer from ` +
    "-9007199254740991 to 9007199254740991 or a string"
  );
}

function where(path: string): string {
  return path === "" ? "the request body" : path;
}

/** 422 Invalid about the object the request writes (its name from the URL, or the body on create). */
function invalidBody(kind: KindName, request: FastifyRequest, causes: StatusCause[]): ApiError {
  const params = request.params as { name?: unknown };
  const metadata = isRecord(request.body) ? request.body.metadata : undefined;
  const declared = isRecord(metadata) ? metadata.name : undefined;
  const name = typeof params.name === "string" ? params.name : declared;
  return invalid(kind, typeof name === "string" ? name : undefined, causes);
}

const ROUTE_KINDS: ReadonlyMap<string, KindName> = new Map(
  KIND_NAMES.flatMap((kind) => {
    const { group, version, plural } = KINDS[kind];
    const collection = `/apis/${group}/${version}/${plural}`;
    return [
      [collection, kind],
      [`${collection}/:name`, kind],
    ] as const;
  }),
);

/** The kind whose route answered, or undefined for any other route (and for unknown paths). */
function kindOfRoute(url: string | undefined): KindName | undefined {
  return url === undefined ? undefined : ROUTE_KINDS.get(url);
}
