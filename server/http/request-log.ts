import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

/**
 * One structured line per request (method, path, status, duration) and nothing else about it: no
 * headers (Authorization), no query string, no body, so no secret can reach the log.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      path: pathOf(request.url),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error(line, "request failed");
    else reply.log.info(line, "request");
  }
}

export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
