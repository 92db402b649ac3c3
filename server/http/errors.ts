import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, type Status } from "../../sdk/errors";
import { failureStatus, reasonForCode } from "../../sdk/errors/reasons";
import { errorFields, pathOf } from "./request-log";
import { shared } from "./shared";

/**
 * Every failure leaves as a Kubernetes `Status`: errors thrown by handlers, framework errors (malformed
 * JSON 400, body too large 413, unsupported media type 415), unknown paths (404) and known paths asked
 * with a method they do not serve (405, with an `Allow` header).
 */
export const errorHandling = shared(async (fastify) => {
  const routes: { segments: string[]; method: string }[] = [];
  fastify.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ segments: route.url.split("/"), method });
  });

  fastify.setErrorHandler((error, request, reply) => {
    // fastify closes the connection after any body parser error, in case the client is still sending the
    // body. Our parsers read the whole body before they fail (malformed JSON or YAML, bad UTF-8, too deep),
    // so once the request is complete the connection can carry the next one: closing it broke keep-alive
    // clients, and made requests already sent on it fail with a reset. A body refused before it is read
    // (over the size limit) still closes.
    if (request.raw.complete) reply.removeHeader("connection");
    const status = toStatus(error);
    if (status.code >= 500) request.log.error({ error: errorFields(error) }, "request failed unexpectedly");
    // Kubernetes says when to come back in both places: clients read the header, Status readers the field.
    const retryAfter = status.details?.retryAfterSeconds;
    if (retryAfter !== undefined) reply.header("Retry-After", String(retryAfter));
    return reply.code(status.code).send(status);
  });

  fastify.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = pathOf(request.url);
    const segments = path.split("/");
    const allowed = routes.filter((route) => matches(route.segments, segments)).map((route) => route.method);
    if (allowed.length > 0) {
      const status = failureStatus(
        "MethodNotAllowed",
        `${request.method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`,
      );
      return reply.code(status.code).header("Allow", allowed.join(", ")).send(status);
    }
    const status = failureStatus("NotFound", `the server could not find the requested resource (${path})`);
    return reply.code(status.code).send(status);
  });
});

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  return (
    pattern.length === segments.length &&
    pattern.every((part, i) => (part.startsWith(":") ? segments[i] !== "" : part === segments[i]))
  );
}

function toStatus(error: unknown): Status {
  if (error instanceof ApiError) return error.status;
  const code = (error as { statusCode?: unknown }).statusCode;
  // Framework errors (fastify's FST_ERR_*) carry a fixed message that never quotes the body.
  if (typeof code === "number" && code >= 400 && code < 500) {
    return failureStatus(reasonForCode(code), (error as Error).message);
  }
  return failureStatus("InternalError", "the server failed to handle the request; see the server log");
}
