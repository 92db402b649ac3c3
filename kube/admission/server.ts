import type { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import type { Logger } from "pino";
import { failureStatus } from "../../sdk/errors/reasons";
import type { KubeClient } from "../client";
import { admitReview } from "./handlers";
import { type AdmissionRequest, type AdmissionResponse, readReview, reviewOf } from "./review";
import { SecretKeeper, type SweepOptions } from "./secrets";

/**
 * The admission webhook kube-apiserver calls over HTTPS (`/admit`), and the sweep that keeps
 * the Secrets it mints (kube/admission/secrets.ts) owned or deleted. `npm run kube` serves it in its own
 * process; `exampledev-admission-webhook` (main.ts) serves the same in a pod, with `/healthz` and `/readyz`
 * for the kubelet's probes on the same port.
 */

export interface AdmissionServerOptions {
  /** The service account's client: it reads the three kinds and writes Secrets in one namespace. */
  client: KubeClient;
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
}

export interface AdmissionServer {
  /** `https://<host>:<port>`; 127.0.0.1 when it listens on every address. */
  url: string;
  secrets: SecretKeeper;
  /** Serves this certificate and key to new connections from now on (a rotated certificate). */
  setCertificate(cert: string, key: string): void;
  close(): Promise<void>;
}

/** How often the sweep runs and how old a Secret no object names must be to go. */
export const DEFAULT_SWEEP = { intervalMs: 10_000, graceMs: 60_000 };

// An AdmissionReview carries the object and the old one, each up to the API's 1.5 MiB and more.
const BODY_LIMIT = 8 * 1024 * 1024;

export async function startAdmissionServer(options: AdmissionServerOptions): Promise<AdmissionServer> {
  const secrets = new SecretKeeper(options.client);
  const app = Fastify({
    https: { cert: options.cert, key: options.key },
    bodyLimit: BODY_LIMIT,
    ...(options.log && { loggerInstance: options.log, disableRequestLogging: true }),
  });
  let ready = true;
  // The process serves (liveness) and takes reviews until it stops (readiness): the kubelet's probes.
  app.get("/healthz", async () => "ok");
  app.get("/readyz", async (_request, reply) => (ready ? "ok" : reply.code(503).send("shutting down")));
  // Any body reaches the handler, whatever its type, to be refused there as what it is not (400).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  app.post("/admit", async (request, reply) => {
    let review: AdmissionRequest;
    try {
      review = readReview(jsonOf(request.headers["content-type"], request.body as Buffer));
    } catch (error) {
      // Not a v1 AdmissionReview of a kind it serves: the caller's error, never the webhook's.
      const message = error instanceof Error ? error.message : String(error);
      return reply.code(400).send(failureStatus("BadRequest", message));
    }
    let response: AdmissionResponse;
    try {
      response = await admitReview(review, secrets, { drainProxies: options.drainProxies });
    } catch (error) {
      // The message names the failing step; no object content (secret values) goes into it.
      const message = `the exampledev admission webhook failed: ${error instanceof Error ? error.message : String(error)}`;
      response = { uid: review.uid, allowed: false, status: failureStatus("InternalError", message) };
    }
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
    setCertificate: (cert, key) => (app.server as HttpsServer).setSecureContext({ cert, key }),
    close: async () => {
      ready = false;
      clearInterval(timer);
      await sweeping;
      await app.close();
      await options.client.close();
    },
  };
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
