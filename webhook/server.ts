import type { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import Fastify, { type FastifyReply } from "fastify";
import type { Logger } from "pino";
import type { RawClient } from "../sdk/client/raw";
import type { Status } from "../sdk/errors";
import { failureStatus } from "../sdk/errors/reasons";
import { admitReview } from "./handlers";
import { type MetricsApp, serveWebhookMetrics, type WebhookMetricsOptions } from "./metrics";
import { type AdmissionRequest, type AdmissionResponse, readReview, reviewOf } from "./review";
import { SecretKeeper, type SweepOptions } from "./secrets";

/**
 * The admission webhook kube-apiserver calls over HTTPS (`/admit`), and the sweep that keeps
 * the Secrets it mints (webhook/secrets.ts) owned or deleted. `npm run kube` serves it in its own
 * process; `exampledev-admission-webhook` (main.ts) serves the same in a pod, with `/healthz` and `/readyz`
 * for the kubelet's probes on the same port.
 */

export interface AdmissionServerOptions {
  /** The service account's client: it reads the three kinds and writes Secrets in one namespace. */
  client: RawClient;
  /** PEM serving certificate and key, signed by the CA the webhook configurations carry. */
  cert: string;
  key: string;
  sweep: SweepOptions & { intervalMs: number };
  /** Whether a controller drains Proxies (the Proxies it admits are created with the drain finalizer). */
  drainProxies: boolean;
  /** Default 127.0.0.1 and a free port. */
  listen?: { host: string; port: number };
  /** Where failures of the sweep go (and Fastify's own errors); default none. Requests are not logged. */
  log?: Logger;
  /**
   * Who may call `/admit`: a client certificate `ca` signed whose subject CN is one of `names` (kube-apiserver,
   * through its admission configuration's kubeconfig). Any other caller gets 401, before its body is read.
   * Without it, anyone who reaches the port (a NetworkPolicy should say who can).
   */
  clientAuth?: { ca: string; names: readonly string[] };
  /**
   * Bytes of reviews admitted at once (default REVIEW_BYTES_IN_FLIGHT); a review past them is answered 429
   * (kube-apiserver retries). One review is always admitted when none is in flight.
   */
  reviewBytesInFlight?: number;
  /** Prometheus metrics and `GET /metrics` (metrics.ts); without it, none. */
  metrics?: WebhookMetricsOptions;
}

export interface AdmissionServer {
  /** `https://<host>:<port>`; 127.0.0.1 when it listens on every address. */
  url: string;
  secrets: SecretKeeper;
  /** Serves this certificate and key to new connections from now on (a rotated certificate). */
  setCertificate(cert: string, key: string): void;
  close(): Promise<void>;
}

/**
 * Who kube-apiserver is to the admission webhook (the CN of the client certificate it presents there). The
 * same CA signs it, so kube-apiserver would authenticate it as this user too: a user no role names.
 */
export const WEBHOOK_CLIENT_USER = "exampledev:kube-apiserver-webhook-client";

/** How often the sweep runs and how old a Secret no object names must be to go. */
export const DEFAULT_SWEEP = { intervalMs: 10_000, graceMs: 60_000 };

/**
 * The largest review: kube-apiserver takes a request body of at most 3 MiB and etcd stores an object of at
 * most 1.5 MiB, so a review (the object, the stored one, a little more) is under 5 MiB. Larger is 413.
 */
export const REVIEW_BODY_LIMIT = 5 * 1024 * 1024;
/**
 * Review bytes admitted at once, counted by each request's Content-Length (the limit when it has none). A
 * review takes up to about 12 times its size while it is admitted (the body, its parse, the admission's
 * copies: about 60 MB at the largest), so two of the largest keep the pod's memory well under its limit
 * (deploy/: 512Mi), while the few-kilobyte reviews of everyday writes are never held back by a count (a
 * limit of two reviews at once made kube-apiserver's creates queue behind one another, and time out under
 * load). A review past the budget is answered 429 with a Status that asks for a retry after a second, which
 * kube-apiserver's webhook client honours (with backoff, within the webhook's timeoutSeconds); after that
 * the write fails (failurePolicy Fail) with 500 and the client retries it.
 */
export const REVIEW_BYTES_IN_FLIGHT = 2 * REVIEW_BODY_LIMIT;

export async function startAdmissionServer(options: AdmissionServerOptions): Promise<AdmissionServer> {
  const secrets = new SecretKeeper(options.client);
  const clientAuth = options.clientAuth;
  // The client's certificate is asked for, not required at the handshake: the kubelet's probes of /healthz
  // and /readyz present none. /admit refuses a caller without one (below).
  const tls = clientAuth ? { requestCert: true, rejectUnauthorized: false, ca: clientAuth.ca } : {};
  const app = Fastify({
    https: { cert: options.cert, key: options.key, ...tls },
    bodyLimit: REVIEW_BODY_LIMIT,
    ...(options.log && { loggerInstance: options.log, disableRequestLogging: true }),
  });
  const metrics = options.metrics && serveWebhookMetrics(app as unknown as MetricsApp, options.metrics);
  let ready = true;
  // The process serves (liveness) and takes reviews until it stops (readiness): the kubelet's probes.
  app.get("/healthz", async () => "ok");
  app.get("/readyz", async (_request, reply) => (ready ? "ok" : reply.code(503).send("shutting down")));
  // Any body reaches the handler, whatever its type, to be refused there as what it is not (400).
  const budget = options.reviewBytesInFlight ?? REVIEW_BYTES_IN_FLIGHT;
  let inFlight = 0;
  // Before the body is read: an unauthenticated caller costs no memory, one past the limit neither.
  app.addHook("onRequest", async (request, reply) => {
    if (request.routeOptions.url !== "/admit") return;
    if (clientAuth && !authenticated(request.raw.socket as TLSSocket, clientAuth.names)) {
      const message =
        "the exampledev admission webhook answers kube-apiserver only: no valid client certificate";
      return answer(reply, failureStatus("Unauthorized", message));
    }
    const declared = Number(request.headers["content-length"]);
    const size = Number.isSafeInteger(declared) && declared >= 0 ? declared : REVIEW_BODY_LIMIT;
    if (inFlight > 0 && inFlight + size > budget) {
      const message = `the exampledev admission webhook is admitting ${inFlight} bytes of reviews; retry shortly`;
      return answer(
        reply.header("retry-after", "1"),
        failureStatus("TooManyRequests", message, { retryAfterSeconds: 1 }),
      );
    }
    inFlight += size;
    let done = false;
    const leave = () => {
      if (!done) inFlight -= size;
      done = true;
    };
    reply.raw.once("finish", leave);
    reply.raw.once("close", leave);
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  app.post("/admit", async (request, reply) => {
    let review: AdmissionRequest;
    try {
      review = readReview(jsonOf(request.headers["content-type"], request.body as Buffer));
    } catch (error) {
      // Not a v1 AdmissionReview of a kind it serves: the caller's error, never the webhook's.
      const message = error instanceof Error ? error.message : String(error);
      return answer(reply, failureStatus("BadRequest", message));
    }
    let response: AdmissionResponse;
    try {
      response = await admitReview(review, secrets, { drainProxies: options.drainProxies });
    } catch (error) {
      // The message names the failing step; no object content (secret values) goes into it.
      const message = `the exampledev admission webhook failed: ${error instanceof Error ? error.message : String(error)}`;
      response = { uid: review.uid, allowed: false, status: failureStatus("InternalError", message) };
    }
    metrics?.decided(review.kind.kind, review.operation, response.allowed);
    return reviewOf(response);
  });

  const listen = options.listen ?? { host: "127.0.0.1", port: 0 };
  await app.listen(listen);
  const { port } = app.server.address() as AddressInfo;
  const host = ["0.0.0.0", "::", ""].includes(listen.host) ? "127.0.0.1" : listen.host;

  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweeping
      .then(() => secrets.sweep(options.sweep))
      .catch((error: unknown) => app.log.warn({ error: String(error) }, "the Secrets sweep failed"));
  }, options.sweep.intervalMs);
  timer.unref();

  return {
    url: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
    secrets,
    setCertificate: (cert, key) =>
      (app.server as HttpsServer).setSecureContext({ cert, key, ...(clientAuth && { ca: clientAuth.ca }) }),
    close: async () => {
      ready = false;
      clearInterval(timer);
      await sweeping;
      await app.close();
      await options.client.close();
    },
  };
}

/** Whether the connection's client certificate verified against the CA and names one of `names` (CN). */
function authenticated(socket: TLSSocket, names: readonly string[]): boolean {
  if (!socket.authorized) return false;
  const { subject } = socket.getPeerCertificate();
  const cn = subject?.CN;
  return typeof cn === "string" && names.includes(cn);
}

/** The JSON of a body kube-apiserver sends (`application/json`); an Error for anything else. */
function jsonOf(contentType: string | undefined, body: Buffer | undefined): unknown {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    throw new Error(
      `not an AdmissionReview this webhook serves: Content-Type ${type || "none"}, not application/json`,
    );
  try {
    return JSON.parse((body ?? Buffer.alloc(0)).toString("utf8"));
  } catch {
    throw new Error("not an AdmissionReview this webhook serves: the body is not JSON");
  }
}

/** A refusal of the webhook itself, with its Status's code. */
function answer(reply: FastifyReply, status: Status): FastifyReply {
  return reply.code(status.code).send(status);
}
