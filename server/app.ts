import Fastify, { type FastifyInstance, type FastifyPluginAsync, type LogLevel } from "fastify";
import type { Registry } from "prom-client";
import { GIT_HOOK_PATH, type GitHookReceiver } from "../controller";
import { KIND_NAMES } from "../sdk/schema";
import { EventStore } from "./events/store";
import { applyPatchBodies } from "./http/apply-patch";
import { authentication } from "./http/auth";
import { contentTypes } from "./http/content-types";
import { durability } from "./http/durability";
import { errorHandling } from "./http/errors";
import { requestMetrics } from "./http/metrics";
import { redaction } from "./http/redaction";
import { RequestLogController } from "./http/request-log";
import { strictJson } from "./http/strict-json";
import { bodyLimitFor, DEFAULT_MAX_OBJECT_BYTES } from "./resources/object-size";
import { discoveryRoutes } from "./routes/discovery";
import { eventRoutes } from "./routes/events";
import { healthRoutes } from "./routes/health";
import { hookRoutes } from "./routes/hooks";
import { openApiRoutes } from "./routes/openapi";
import { resourceRoutes } from "./routes/resources";
import { secretRoutes } from "./routes/secrets";
import { openWatches, type WatchOptions } from "./routes/watch";
import type { ObjectStore } from "./storage";

export interface AppOptions {
  store: ObjectStore;
  /** When set, every request but /healthz needs `Authorization: Bearer <token>`. */
  token?: string;
  /** The bearer token of the server's own controller, the one reader of the Secrets view (`routes/secrets.ts`). */
  controllerToken?: string;
  /** Watch tuning (history size, bookmark interval, bounds); the defaults are Kubernetes-like. */
  watch?: Partial<WatchOptions>;
  /** Where `POST /hooks/git` deliveries go; without it the route is not served. */
  gitHooks?: GitHookReceiver;
  /** `--webhook-secret`: deliveries must be signed with it, and need no API token. */
  webhookSecret?: string;
  /**
   * The largest object a write may store, in bytes of JSON (default 1.5 MiB, etcd's); larger is 413.
   * Request bodies over twice this are refused before they are read.
   */
  maxObjectBytes?: number;
  /**
   * Whether the controller drains Proxies: each Proxy is then created with the drain finalizer, which the
   * controller takes off once a deleted Proxy has drained.
   */
  drainProxies?: boolean;
  /** Kubernetes Events, kept in memory (server/events/store.ts); default a store of its own. */
  events?: EventStore;
  /** The Prometheus registry `/metrics` serves (http/metrics.ts); without it, no metrics are kept. */
  metrics?: Registry;
}

/** The API as a fastify plugin: cross-cutting plugins first, then one encapsulated group per kind. */
export const app: FastifyPluginAsync<AppOptions> = async (
  fastify,
  {
    store,
    token,
    controllerToken,
    watch,
    gitHooks,
    webhookSecret,
    maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES,
    drainProxies,
    events,
    metrics,
  },
) => {
  await fastify.register(errorHandling);
  await fastify.register(durability, { store });
  const signedPaths = gitHooks && webhookSecret !== undefined ? [GIT_HOOK_PATH] : [];
  await fastify.register(authentication, { token, controllerToken, signedPaths });
  if (metrics) await fastify.register(requestMetrics, { registry: metrics, token });
  await fastify.register(contentTypes);
  await fastify.register(applyPatchBodies);
  await fastify.register(strictJson);
  await fastify.register(redaction);
  await fastify.register(healthRoutes);
  await fastify.register(discoveryRoutes);
  await fastify.register(openApiRoutes);
  if (gitHooks) await fastify.register(hookRoutes, { receiver: gitHooks, secret: webhookSecret });
  await fastify.register(secretRoutes, { store });
  const eventStore = events ?? new EventStore();
  // preClose: open watches end before the server waits for its connections to close.
  fastify.addHook("preClose", async () => eventStore.close());
  await fastify.register(eventRoutes, { events: eventStore });
  const watches = openWatches(fastify, store, watch);
  for (const kind of KIND_NAMES) {
    await fastify.register(resourceRoutes, {
      kind,
      store,
      watches,
      maxObjectBytes,
      drainProxies,
    });
  }
};

/** Where log lines go: a pino destination (anything with `write`). */
export interface LogDestination {
  write(line: string): void;
}

export interface BuildAppOptions extends AppOptions {
  logLevel?: LogLevel;
  /** Defaults to stdout. Tests pass their own to read every line. */
  logStream?: LogDestination;
  /** Serve HTTPS with this certificate and key (server/tls.ts). */
  tls?: { cert: string; key: string };
}

export function buildApp({
  logLevel = "info",
  logStream,
  tls,
  ...options
}: BuildAppOptions): FastifyInstance {
  const fastify = Fastify({
    ...(tls && { https: tls }),
    bodyLimit: bodyLimitFor(options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES),
    exposeHeadRoutes: false,
    // Object names are DNS-1123 subdomains of up to 253 characters; fastify's default cap is 100.
    routerOptions: { maxParamLength: 253 },
    logger: { level: logLevel, ...(logStream && { stream: logStream }) },
    logController: new RequestLogController(),
  });
  fastify.register(app, options);
  return fastify;
}
