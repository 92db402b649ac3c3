import { createHash, timingSafeEqual } from "node:crypto";
import { apiError } from "../../sdk/errors/server-errors";
import { pathOf } from "./request-log";
import { shared } from "./shared";

/** Paths a load balancer or test harness probes without credentials. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(["/healthz"]);

declare module "fastify" {
  interface FastifyRequest {
    /** The server's own controller sent it (see `controllerToken`). */
    fromController: boolean;
  }
}

/**
 * With a token, every request except the public paths needs `Authorization: Bearer <token>` (401
 * otherwise). Comparing SHA-256 digests keeps the comparison constant-time and independent of lengths.
 * `controllerToken` is the identity of the server's own controller, a client like any other but the one
 * that may read the Secrets holding the objects' secret values (routes/secrets.ts), as a Kubernetes
 * controller's service account may; it lives only in the server's memory.
 */
export const authentication = shared<{
  token?: string;
  controllerToken?: string;
  /** Paths whose requests carry a signature of their own, checked by their route (signed webhooks). */
  signedPaths?: readonly string[];
}>(async (fastify, { token, controllerToken, signedPaths = [] }) => {
  const unguarded = new Set([...PUBLIC_PATHS, ...signedPaths]);
  fastify.decorateRequest("fromController", false);
  const expected = token === undefined ? undefined : digest(token);
  const controller = controllerToken === undefined ? undefined : digest(controllerToken);
  if (expected === undefined && controller === undefined) return;
  fastify.addHook("onRequest", async (request, reply) => {
    if (unguarded.has(pathOf(request.url))) return;
    const { authorization } = request.headers;
    if (controller !== undefined && bearerMatches(authorization, controller)) {
      request.fromController = true;
      return;
    }
    if (expected === undefined || bearerMatches(authorization, expected)) return;
    reply.header("WWW-Authenticate", 'Bearer realm="exampledev"');
    throw apiError("Unauthorized", "Unauthorized: send the API token as 'Authorization: Bearer <token>'");
  });
});

export function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return timingSafeEqual(digest(match?.[1] ?? ""), expected) && match !== null;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
