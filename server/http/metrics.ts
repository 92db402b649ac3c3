// The local server's Prometheus metrics, under kube-apiserver's names so that its dashboards and alerts
// read them unchanged: `apiserver_request_total` and `apiserver_request_duration_seconds` (verb, group,
// version, resource, subresource, scope, component, code) and `apiserver_longrunning_requests` (open
// watches). `GET /metrics` serves them with the embedded controller's (controller/metrics.ts) from the same
// registry, on the API port as kube-apiserver serves its own: with `--token`, to callers with the token (the
// authentication plugin's rule for every path); without one, to loopback callers only.
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { apiError } from "../../sdk/errors/server-errors";
import { shared } from "./shared";

/** kube-apiserver's request duration buckets. */
const DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
const LABELS = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const;
type Labels = Record<(typeof LABELS)[number], string>;

export const METRICS_PATH = "/metrics";

/** What kube-apiserver's request info would say of this request: its verb and resource. */
export function requestLabels(method: string, url: string, contentType: string | undefined): Labels {
  const [path = "", query = ""] = url.split("?", 2);
  const parts = path.split("/").filter(Boolean);
  let group = "";
  let rest: string[];
  let version = "";
  if (parts[0] === "api" && parts.length >= 2) {
    version = parts[1] ?? "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    group = parts[1] ?? "";
    version = parts[2] ?? "";
    rest = parts.slice(3);
  } else {
    return {
      verb: method,
      group: "",
      version: "",
      resource: "",
      subresource: "",
      scope: "",
      component: "apiserver",
    };
  }
  let scope = "cluster";
  if (rest[0] === "namespaces" && rest.length >= 3) {
    scope = "namespace";
    rest = rest.slice(2);
  }
  const [resource = "", name, subresource = ""] = rest;
  const watching = /(?:^|&)watch=(?:true|1)(?:&|$)/.test(query);
  const item = name !== undefined;
  if (!item && scope === "cluster" && rest.length === 0) scope = "";
  const verb =
    method === "GET"
      ? watching
        ? "WATCH"
        : item
          ? "GET"
          : "LIST"
      : method === "PATCH" && contentType?.startsWith("application/apply-patch")
        ? "APPLY"
        : method === "DELETE" && !item
          ? "DELETECOLLECTION"
          : method;
  return {
    verb,
    group,
    version,
    resource,
    subresource,
    scope: item ? "resource" : scope,
    component: "apiserver",
  };
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

declare module "fastify" {
  interface FastifyRequest {
    metricsStart?: number;
  }
}

export const requestMetrics: FastifyPluginAsync<{ registry: Registry; token?: string | undefined }> = shared(
  async (fastify, { registry, token }) => {
    const registers = [registry];
    const requests = new Counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
      labelNames: [...LABELS, "code"],
      registers,
    });
    const duration = new Histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
      labelNames: LABELS,
      buckets: DURATION_BUCKETS,
      registers,
    });
    const longRunning = new Gauge({
      name: "apiserver_longrunning_requests",
      help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.",
      labelNames: LABELS,
      registers,
    });
    const labelsOf = (request: FastifyRequest) =>
      requestLabels(request.method, request.url, request.headers["content-type"]);

    fastify.addHook("onRequest", async (request) => {
      request.metricsStart = performance.now();
      if (request.method !== "GET" || !request.url.includes("watch=")) return;
      const labels = labelsOf(request);
      if (labels.verb !== "WATCH") return;
      longRunning.inc(labels);
      request.raw.once("close", () => longRunning.dec(labels));
    });
    fastify.addHook("onResponse", async (request, reply) => {
      const labels = labelsOf(request);
      requests.inc({ ...labels, code: String(reply.statusCode) });
      if (labels.verb !== "WATCH" && request.metricsStart !== undefined)
        duration.observe(labels, (performance.now() - request.metricsStart) / 1000);
    });

    fastify.get(METRICS_PATH, async (request, reply) => {
      // With a token, the authentication plugin has let only its holders through; without one, only loopback.
      if (token === undefined && !isLoopback(request.socket.remoteAddress)) {
        throw apiError(
          "Forbidden",
          `forbidden: ${METRICS_PATH} is served to loopback callers only when the server has no --token`,
        );
      }
      return reply.header("content-type", registry.contentType).send(await registry.metrics());
    });
  },
);
