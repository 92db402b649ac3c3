import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { failureStatus } from "../../sdk/errors/reasons";
import type { KubeClient } from "../client";
import { admitReview } from "./handlers";
import { type AdmissionResponse, readReview, reviewOf } from "./review";
import { SecretKeeper, type SweepOptions } from "./secrets";

/**
 * The admission webhook kube-apiserver calls over HTTPS (`/admit`), and the sweep that keeps
 * the Secrets it mints (kube/admission/secrets.ts) owned or deleted.
 */

export interface AdmissionServerOptions {
  /** The service account's client: it reads the three kinds and writes Secrets in one namespace. */
  client: KubeClient;
  /** PEM serving certificate and key, signed by the CA the webhook configurations carry. */
  cert: string;
  key: string;
  sweep: SweepOptions & { intervalMs: number };
}

export interface AdmissionServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  secrets: SecretKeeper;
  close(): Promise<void>;
}

// An AdmissionReview carries the object and the old one, each up to the API's 1.5 MiB and more.
const BODY_LIMIT = 8 * 1024 * 1024;

export async function startAdmissionServer(options: AdmissionServerOptions): Promise<AdmissionServer> {
  const secrets = new SecretKeeper(options.client);
  const app = Fastify({ https: { cert: options.cert, key: options.key }, bodyLimit: BODY_LIMIT });
  app.post("/admit", async (request) => {
    const review = readReview(request.body);
    let response: AdmissionResponse;
    try {
      response = await admitReview(review, secrets);
    } catch (error) {
      // The message names the failing step; no object content (secret values) goes into it.
      const message = `the exampledev admission webhook failed: ${error instanceof Error ? error.message : String(error)}`;
      response = { uid: review.uid, allowed: false, status: failureStatus("InternalError", message) };
    }
    return reviewOf(response);
  });

  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as AddressInfo;

  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweeping
      .then(() => secrets.sweep(options.sweep))
      .catch((error: unknown) => app.log.warn(error));
  }, options.sweep.intervalMs);
  timer.unref();

  return {
    url: `https://127.0.0.1:${port}`,
    secrets,
    close: async () => {
      clearInterval(timer);
      await sweeping;
      await app.close();
      await options.client.close();
    },
  };
}
