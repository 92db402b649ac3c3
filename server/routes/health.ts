import type { FastifyPluginAsync } from "fastify";

/** Liveness, answered without credentials (the auth hook lets this path through). */
export const healthRoutes: FastifyPluginAsync = async (fastify) => {
  fastify.get("/healthz", async (_request, reply) => reply.type("text/plain").send("ok"));
};
