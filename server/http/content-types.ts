import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, badRequest } from "../errors";
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
  // fastify's own parser (secure-json-parse); at run time it is the callback form.
  const parseJson = fastify.getDefaultJsonParser("error", "error") as (
    request: FastifyRequest,
    body: string,
    done: (error: Error | null, value?: unknown) => void,
  ) => void;
  fastify.removeContentTypeParser(["text/plain", JSON_TYPE]);
  fastify.addContentTypeParser([JSON_TYPE, ...PATCH_TYPES], { parseAs: "buffer" }, (request, body, done) => {
    let text: string;
    try {
      text = decodeUtf8(body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    parseJson(request, text, (error, value) => {
      if (error) done(error, undefined);
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
  });
});

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
    throw new ApiError(
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
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return deepest;
}
