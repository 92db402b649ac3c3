// The controller command's health endpoint for the kubelet's probes, as controller-runtime's
// `--health-probe-bind-address :8081` serves it: `/healthz` answers 200 while the replica's election loop
// runs (500 once it stopped or lost the Lease, when the process is about to exit anyway), `/readyz` 200 when
// the replica is a standby waiting for the Lease or the leader with its caches synced, 503 while a new
// leader lists and once it stops. Plain HTTP: probes come from the kubelet, and nothing here is secret.
// Given a hook handler (`--webhook-secret`), it also takes git push deliveries on `POST /hooks/git`
// (hooks/handler.ts): signed ones only, so whoever can reach the port cannot make the controller fetch.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { ReplicaPhase } from "./elected";
import { GIT_HOOK_PATH, type GitHookHandler } from "./hooks/handler";
import { serveGitHook } from "./hooks/node-http";

export interface HealthServer {
  /** `http://<address>:<port>` (127.0.0.1 when it listens on every address). */
  url: string;
  close(): Promise<void>;
}

export const DEFAULT_HEALTH = { address: "0.0.0.0", port: 8081 } as const;

/** What each endpoint answers in each phase: [status, body]. */
const ANSWERS: Readonly<Record<"/healthz" | "/readyz", Readonly<Record<ReplicaPhase, [number, string]>>>> = {
  "/healthz": {
    standby: [200, "ok"],
    syncing: [200, "ok"],
    leading: [200, "ok"],
    stopped: [500, "the election loop has ended"],
  },
  "/readyz": {
    standby: [200, "ok: standby, waiting for the Lease"],
    syncing: [503, "leading; the caches are not synced yet"],
    leading: [200, "ok: leading"],
    stopped: [503, "stopping"],
  },
};

/**
 * `/metrics` beside the probes, as controller-runtime serves it: to loopback callers, and to others whose
 * bearer token `authorize` accepts (on a cluster: delegated to kube-apiserver, a TokenReview and a
 * SubjectAccessReview for `get` on the non-resource URL `/metrics`; sdk/client/reviews.ts).
 */
export interface MetricsEndpoint {
  registry: Registry;
  authorize?: (token: string) => Promise<boolean>;
}

export const METRICS_PATH = "/metrics";

function isLoopback(address: string | undefined): boolean {
  return address === "::1" || !!address?.startsWith("127.") || !!address?.startsWith("::ffff:127.");
}

async function serveMetrics(request: IncomingMessage, response: ServerResponse, metrics: MetricsEndpoint) {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  let allowed = isLoopback(request.socket.remoteAddress);
  if (!allowed && bearer !== undefined && metrics.authorize) {
    try {
      allowed = await metrics.authorize(bearer);
    } catch {
      allowed = false;
    }
  }
  if (!allowed) {
    const status = bearer === undefined ? 401 : 403;
    response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
    response.end(status === 401 ? "Unauthorized\n" : `Forbidden: get ${METRICS_PATH} is not allowed\n`);
    return;
  }
  const text = await metrics.registry.metrics();
  response.writeHead(200, { "content-type": metrics.registry.contentType }).end(text);
}

export async function startHealthServer(
  listen: { address: string; port: number },
  phase: () => ReplicaPhase,
  gitHook?: GitHookHandler,
  metrics?: MetricsEndpoint,
): Promise<HealthServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (gitHook && path === GIT_HOOK_PATH) return serveGitHook(request, response, gitHook);
    if (metrics && path === METRICS_PATH && request.method === "GET") {
      void serveMetrics(request, response, metrics);
      return;
    }
    const answers = Object.hasOwn(ANSWERS, path) ? ANSWERS[path as keyof typeof ANSWERS] : undefined;
    const [status, body] =
      request.method !== "GET" && request.method !== "HEAD"
        ? [405, "method not allowed"]
        : answers === undefined
          ? [404, "not found"]
          : answers[phase()];
    response.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${body}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.address, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = ["0.0.0.0", "::", ""].includes(listen.address) ? "127.0.0.1" : listen.address;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
