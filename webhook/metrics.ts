// The admission webhook's Prometheus metrics under controller-runtime's webhook names
// (`controller_runtime_webhook_latency_seconds`, `controller_runtime_webhook_requests_total`,
// `controller_runtime_webhook_requests_in_flight`, label `webhook`) and its decisions under
// `exampledev_admission_decisions_total` (kind, operation, allowed). `GET /metrics` on the webhook's port
// serves them to loopback callers and to bearer tokens `authorize` accepts (kube-apiserver's delegated
// authorization of `get /metrics`, sdk/client/reviews.ts), as controller-runtime protects its endpoint.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export interface WebhookMetricsOptions {
  registry: Registry;
  authorize?: (token: string) => Promise<boolean>;
}

const WEBHOOK = "/admit";
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface WebhookMetrics {
  decided(kind: string, operation: string, allowed: boolean): void;
}

function isLoopback(address: string | undefined): boolean {
  return address === "::1" || !!address?.startsWith("127.") || !!address?.startsWith("::ffff:127.");
}

/** Registers the hooks that count `/admit` and the `/metrics` route; returns what the handler reports. */
/** The parts of a fastify instance used here, whatever its server type (the webhook's is HTTPS). */
export type MetricsApp = Pick<FastifyInstance, "addHook" | "get">;

export function serveWebhookMetrics(app: MetricsApp, options: WebhookMetricsOptions): WebhookMetrics {
  const { registry } = options;
  const registers = [registry];
  const latency = new Histogram({
    name: "controller_runtime_webhook_latency_seconds",
    help: "Histogram of the latency of processing admission requests",
    labelNames: ["webhook"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const requests = new Counter({
    name: "controller_runtime_webhook_requests_total",
    help: "Total number of admission requests by HTTP status code.",
    labelNames: ["webhook", "code"],
    registers,
  });
  const inFlight = new Gauge({
    name: "controller_runtime_webhook_requests_in_flight",
    help: "Current number of admission requests being served.",
    labelNames: ["webhook"],
    registers,
  });
  const decisions = new Counter({
    name: "exampledev_admission_decisions_total",
    help: "Admission reviews answered, by kind, operation and whether the write was allowed",
    labelNames: ["kind", "operation", "allowed"],
    registers,
  });
  const labels = { webhook: WEBHOOK };
  const started = new WeakMap<object, number>();
  app.addHook("onRequest", async (request: FastifyRequest) => {
    if (request.routeOptions.url !== WEBHOOK) return;
    started.set(request, performance.now());
    inFlight.inc(labels);
  });
  app.addHook("onResponse", async (request: FastifyRequest, reply: FastifyReply) => {
    const start = started.get(request);
    if (start === undefined) return;
    inFlight.dec(labels);
    requests.inc({ ...labels, code: String(reply.statusCode) });
    latency.observe(labels, (performance.now() - start) / 1000);
  });
  app.get("/metrics", async (request: FastifyRequest, reply: FastifyReply) => {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    let allowed = isLoopback(request.socket.remoteAddress);
    if (!allowed && bearer !== undefined && options.authorize)
      allowed = await options.authorize(bearer).catch(() => false);
    if (!allowed) return reply.code(bearer === undefined ? 401 : 403).send("forbidden: get /metrics");
    return reply.header("content-type", registry.contentType).send(await registry.metrics());
  });
  return {
    decided: (kind, operation, allowed) => decisions.inc({ kind, operation, allowed: String(allowed) }),
  };
}
