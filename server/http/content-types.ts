import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ApiError } from "../../sdk/errors";
import { apiError, badRequest } from "../../sdk/errors/server-errors";
import { formatPath, type PathSegment } from "../../sdk/schema/violation";
import { isRecord } from "../records";
import { PATCH_TYPES } from "../resources/patch";
import { shared } from "./shared";
import { decodeUtf8, recordJsonDiagnostics } from "./strict-json";

export const JSON_TYPE = "application/json";

/** Far deeper than any object of this API; bounds the recursion of everything that walks a body. */
export const MAX_BODY_DEPTH = 100;

/**
 * The body parsers: JSON for objects and for both patch formats, nothing else (fastify's text/plain
 * parser would hand a string to the handlers). The body must be UTF-8 (400 otherwise, never U+FFFD).
 * `__proto__` and `constructor.prototype` keys are refused (400) before any patch library sees them, and
 * so are bodies nested deeper than MAX_BODY_DEPTH. Duplicate keys and numbers JSON.parse cannot keep
 * are recorded for the strict-json plugin, which applies fieldValidation to them.
 */
export const contentTypes = shared(async (fastify) => {
  const parseJson = jsonBodyParser(fastify);
  fastify.removeContentTypeParser(["text/plain", JSON_TYPE]);
  fastify.addContentTypeParser([JSON_TYPE, ...PATCH_TYPES], { parseAs: "buffer" }, (request, body, done) => {
    let text: string;
    try {
      text = decodeUtf8(body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    parseJson(request, text, done);
  });
});

type Done = (error: Error | null, value?: unknown) => void;

/**
 * The JSON body parser of every content type that carries JSON: fastify's own (secure-json-parse, which
 * refuses prototype keys), then the depth bound and the strict-json diagnostics.
 */
export function jsonBodyParser(fastify: FastifyInstance) {
  // At run time fastify's default parser is the callback form.
  const parseJson = fastify.getDefaultJsonParser("error", "error") as (
    request: FastifyRequest,
    body: string,
    done: Done,
  ) => void;
  return (request: FastifyRequest, text: string, done: Done): void => {
    parseJson(request, text, (error, value) => {
      if (error) done(prototypeKeyRefusal(text) ?? error, undefined);
      else if (depthOf(value) > MAX_BODY_DEPTH) done(tooDeep(), undefined);
      else {
        try {
          recordJsonDiagnostics(request, text);
        } catch (scanError) {
          // Only depth can fail a text JSON.parse accepted: duplicate keys can hide nesting from depthOf.
          done(scanError instanceof RangeError ? tooDeep() : (scanError as Error), undefined);
          return;
        }
        done(null, value);
      }
    });
  };
}

/**
 * fastify says "not valid JSON" of a body it refuses for a prototype key; when the body is valid JSON, the
 * refusal is said as it is, naming the key's path.
 */
function prototypeKeyRefusal(text: string): ApiError | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const path = prototypeKeyPath(value);
  return path === undefined ? undefined : prototypeKeyRefused(path);
}

/** The JSON path of the first `__proto__` key, or `constructor` key holding a `prototype`; iterative. */
export function prototypeKeyPath(value: unknown): string | undefined {
  const stack: { node: unknown; path: PathSegment[] }[] = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop() as { node: unknown; path: PathSegment[] };
    if (Array.isArray(node)) {
      node.forEach((item, index) => void stack.push({ node: item, path: [...path, index] }));
    } else if (isRecord(node)) {
      for (const [key, child] of Object.entries(node)) {
        if (
          key === "__proto__" ||
          (key === "constructor" && isRecord(child) && Object.hasOwn(child, "prototype"))
        )
          return formatPath([...path, key]);
        stack.push({ node: child, path: [...path, key] });
      }
    }
  }
  return undefined;
}

/** 400 for a body with a prototype key: valid JSON (or YAML), which the server refuses all the same. */
export function prototypeKeyRefused(path: string): ApiError {
  return badRequest(
    `the request body has a "__proto__" or "constructor.prototype" key at ${path}; the server refuses these keys, ` +
      "which can change the prototype of JavaScript objects: rename or remove it",
  );
}

export function tooDeep() {
  return badRequest(`the request body is nested more than ${MAX_BODY_DEPTH} levels deep`);
}

export function mediaTypeOf(request: FastifyRequest): string | undefined {
  const header = request.headers["content-type"];
  return header?.split(";")[0]?.trim().toLowerCase() || undefined;
}

/** A route-level onRequest hook: refuses other media types (415) before the body is read. */
export function acceptMediaTypes(accepted: readonly string[], required: boolean) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const type = mediaTypeOf(request);
    if (type === undefined ? !required : accepted.includes(type)) return;
    throw apiError(
      "UnsupportedMediaType",
      `the body of the request was in an unknown format (${type ?? "no Content-Type"}); accepted media types: ${accepted.join(", ")}`,
    );
  };
}

/** Nesting depth without recursion, so a hostile body cannot exhaust the stack here either. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (typeof node !== "object" || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_DEPTH) return deepest;
    // Only containers go on the stack: an array of a million numbers costs no allocation per number.
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return deepest;
}
