import type { FastifyPluginAsync, FastifyPluginOptions } from "fastify";

/**
 * Marks a plugin as cross-cutting: its hooks, handlers and parsers apply to the instance that registers
 * it (and so to every route group registered after it) instead of staying encapsulated. This is the
 * `skip-override` property that `fastify-plugin` sets (fastify docs, Plugins, "Handle the scope").
 */
export function shared<Options extends FastifyPluginOptions>(
  plugin: FastifyPluginAsync<Options>,
): FastifyPluginAsync<Options> {
  return Object.assign(plugin, { [Symbol.for("skip-override")]: true });
}
