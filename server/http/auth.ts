import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "../errors";
import { pathOf } from "./request-log";
import { shared } from "./shared";

/** Paths a load balancer or test harness probes without credentials. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(["/healthz"]);

/**
 * With a token, every request except the public paths needs `Authorization: Bearer <token>` (401
 * otherwise). Comparing SHA-256 digests keeps the comparison constant-time and independent of lengths.
 */
export const authentication = shared<{ token?: string }>(async (fastify, { token }) => {
  if (token === undefined) return;
  const expected = digest(token);
  fastify.addHook("onRequest", async (request, reply) => {
    if (PUBLIC_PATHS.has(pathOf(request.url))) return;
    if (bearerMatches(request.headers.authorization, expected)) return;
    reply.header("WWW-Authenticate", 'Bearer realm="exampledev"');
    throw new ApiError("Unauthorized", "Unauthorized: send the API token as 'Authorization: Bearer <token>'");
  });
});

export function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return timingSafeEqual(digest(match?.[1] ?? ""), expected) && match !== null;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
