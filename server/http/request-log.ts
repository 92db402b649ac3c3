import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

/**
 * One structured line per request (method, path, status, duration) and nothing else about it: no
 * headers (Authorization), no query string, no body, so no secret can reach the log.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      path: pathOf(request.url),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error(line, "request failed");
    // The server's own controller logs what it does; its requests only repeat that.
    else if (request.fromController) reply.log.debug(line, "controller request");
    else reply.log.info(line, "request");
  }
}

export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/**
 * An error as a log field: name, message and stack only. pino's own serializer would copy every
 * enumerable property, and libraries attach the input they choked on (a patch library, the document).
 */
export function errorFields(error: unknown): { name: string; message: string; stack?: string } {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  return { name: error.name, message: error.message, ...(error.stack && { stack: error.stack }) };
}
