import type { FastifyReply, FastifyRequest } from "fastify";
import type { ApiError, StatusCause } from "../../sdk/errors";
import { badRequest, invalid } from "../../sdk/errors/server-errors";
import { KIND_NAMES, KINDS, type KindName, SECRET_FIELDS } from "../../sdk/schema";
import { integerFieldFix } from "../../sdk/schema/rules/ranges";
import { formatPath, type PathSegment } from "../../sdk/schema/violation";
import { isRecord } from "../records";
import { MAX_BODY_DEPTH } from "./content-types";
import { queryFor } from "./query";
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
 * are checked; the body parser records what it found and a preHandler hook applies fieldValidation as
 * the route read it from the query (http/query).
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

/**
 * Duplicate keys and lossy numbers of a text JSON.parse accepted, in one pass over its characters: each
 * container on the way keeps the keys seen so far, and a path is only built for a finding. A JSON syntax
 * tree would do the same walk, but building one costs about a hundred times JSON.parse (a 3 MiB body of
 * numbers held the event loop for seconds through @humanwhocodes/momoa); this stays within a few times it.
 * Nesting past MAX_BODY_DEPTH (only reachable behind a duplicate key, since the parsed value's depth is
 * checked first) is a RangeError, which callers answer as too deep.
 */
export function scanJson(text: string): JsonDiagnostics {
  const diagnostics: JsonDiagnostics = { duplicates: [], nonFinite: [], unsafeIntegers: [] };
  const duplicates = new Set<string>();
  // The containers around the current value, and the segment of the path each one is at.
  const containers: { keys: Set<string> | undefined; index: number; expectsKey: boolean }[] = [];
  const segments: PathSegment[] = [];
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    const top = containers[containers.length - 1];
    if (code === QUOTE) {
      const end = closingQuote(text, at);
      if (top?.keys !== undefined && top.expectsKey) {
        const raw = text.slice(at, end + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        segments[segments.length - 1] = key;
        if (top.keys.has(key)) duplicates.add(formatPath(segments));
        top.keys.add(key);
        top.expectsKey = false;
      } else if (top?.keys === undefined) enterElement(top, segments);
      at = end + 1;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      enterElement(top, segments);
      if (containers.length >= MAX_BODY_DEPTH) throw new RangeError("the JSON text is nested too deep");
      containers.push({ keys: code === OPEN_OBJECT ? new Set() : undefined, index: -1, expectsKey: true });
      segments.push("");
      at++;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      containers.pop();
      segments.pop();
      at++;
    } else if (code === COMMA) {
      if (top !== undefined) top.expectsKey = true;
      at++;
    } else if (code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9)) {
      enterElement(top, segments);
      let end = at + 1;
      let exponent = false;
      for (let next = text.charCodeAt(end); NUMBER_CHARACTERS.has(next); next = text.charCodeAt(++end)) {
        exponent ||= next === LETTER_E || next === LETTER_CAPITAL_E;
      }
      // Without an exponent, at most 15 characters hold at most 15 digits: finite and exactly kept.
      if (exponent || end - at > 15) {
        const source = text.slice(at, end);
        const value = Number(source);
        if (!Number.isFinite(value) || (!Number.isSafeInteger(value) && INTEGER_LITERAL.test(source))) {
          const path = segments.slice();
          const lossy = { path: formatPath(path), literal: literalFor(source, path), value };
          (Number.isFinite(value) ? diagnostics.unsafeIntegers : diagnostics.nonFinite).push(lossy);
        }
      }
      at = end;
    } else {
      // Whitespace, ":" and the letters of true, false and null.
      if (code === LETTER_T || code === LETTER_F || code === LETTER_N) enterElement(top, segments);
      at += code === LETTER_F ? 5 : code === LETTER_T || code === LETTER_N ? 4 : 1;
    }
  }
  diagnostics.duplicates = [...duplicates];
  return diagnostics;
}

/** A value starts: in an array, it is the next element, and the path's last segment is its index. */
function enterElement(
  container: { keys: Set<string> | undefined; index: number } | undefined,
  segments: PathSegment[],
): void {
  if (container === undefined || container.keys !== undefined) return;
  container.index++;
  segments[segments.length - 1] = container.index;
}

/** The index of the quote that closes the string opening at `start` (one not escaped by a backslash). */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

const code = (character: string) => character.charCodeAt(0);
const [QUOTE, BACKSLASH, COMMA, MINUS] = ['"', "\\", ",", "-"].map(code) as [number, number, number, number];
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = ["{", "}", "[", "]"].map(code) as [
  number,
  number,
  number,
  number,
];
const [DIGIT_0, DIGIT_9, LETTER_T, LETTER_F, LETTER_N, LETTER_E, LETTER_CAPITAL_E] = [
  "0",
  "9",
  "t",
  "f",
  "n",
  "e",
  "E",
].map(code) as [number, number, number, number, number, number, number];
const NUMBER_CHARACTERS: ReadonlySet<number> = new Set([..."0123456789+-.eE"].map(code));
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
  const { fieldValidation } = queryFor(request, "create", "replace", "patch", "apply");
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
  return invalid(KINDS[kind], typeof name === "string" ? name : undefined, causes);
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
