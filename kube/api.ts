import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ADMISSION_IDENTITY, CONTROLLER_IDENTITY } from "../deploy/identities";
import { webhookClient } from "../webhook/client";
import type { SweepOptions } from "../webhook/secrets";
import {
  type AdmissionServer,
  DEFAULT_SWEEP,
  startAdmissionServer,
  WEBHOOK_CLIENT_USER,
} from "../webhook/server";
import { type KubeEnv, type KubeOptions, startKube } from "./env";
import { adminClient, installCrds, installIdentity, installWebhook } from "./install";
import { kubeconfigYaml } from "./kubeconfig";
import { signServingCert } from "./pki";

/**
 * The project's API on a real Kubernetes API server: etcd, kube-apiserver and kube-controller-manager
 * (kube/env.ts), the three kinds as CRDs, the admission webhook (webhook/) serving from this process as
 * its own service account, and the controller's service account with a kubeconfig for it (the controller
 * itself is started by whoever wants one: `npm run kube`, a test).
 */

export interface KubeApi extends KubeEnv {
  admission: AdmissionServer;
  /** A kubeconfig for the controller's service account (`exampledev-controller --kubeconfig`). */
  controllerKubeconfig: string;
}

export interface KubeApiOptions extends KubeOptions {
  /** How the webhook's Secrets are swept (webhook/secrets.ts); defaults suit a long-lived cluster. */
  sweep?: Partial<SweepOptions & { intervalMs: number }>;
  /**
   * Whether a controller will drain Proxies, so the webhook creates each Proxy with the drain finalizer.
   * Default true; false is kube-apiserver with no controller (conformance), where a Proxy goes at once.
   */
  drainProxies?: boolean;
}

export async function startKubeApi(options: KubeApiOptions = {}): Promise<KubeApi> {
  const kube = await startKube({ ...options, beforeControllers: installKinds });
  const admin = adminClient(kube);
  let admission: AdmissionServer | undefined;
  // Clients before the servers they call: kube-apiserver calls the webhook, and keeps its connections to it
  // open (the webhook's server waits for them when it closes: 30 s and more after many writes), so the webhook
  // closes last, once kube-apiserver has exited and its connections with it.
  const close = async () => {
    await admin.close();
    await kube.close();
    await admission?.close();
  };
  try {
    const token = await installIdentity(admin, ADMISSION_IDENTITY);
    const serving = await signServingCert(kube.dir, "exampledev-admission");
    admission = await startAdmissionServer({
      client: webhookClient({ baseUrl: kube.url, token, ca: kube.caCert }),
      cert: await readFile(serving.certFile, "utf8"),
      key: await readFile(serving.keyFile, "utf8"),
      sweep: { ...DEFAULT_SWEEP, ...options.sweep },
      drainProxies: options.drainProxies ?? true,
      // kube-apiserver presents WEBHOOK_CLIENT_USER's certificate (kube/env.ts' admission configuration).
      clientAuth: { ca: kube.caCert, names: [WEBHOOK_CLIENT_USER] },
    });
    await installWebhook(admin, admission.url, kube.caCert);
    const controllerKubeconfig = path.join(kube.dir, "controller.kubeconfig");
    const controllerToken = await installIdentity(admin, CONTROLLER_IDENTITY);
    await writeFile(
      controllerKubeconfig,
      kubeconfigYaml(kube.url, kube.caCert, {
        name: CONTROLLER_IDENTITY.name,
        credentials: { token: controllerToken },
      }),
      { mode: 0o600 },
    );
    return { ...kube, admission, controllerKubeconfig, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The CRDs, before kube-controller-manager starts: its garbage collector watches them from its start. */
export async function installKinds(env: { url: string; token: string; caCert: string }): Promise<void> {
  const admin = adminClient(env);
  try {
    await installCrds(admin);
  } finally {
    await admin.close();
  }
}
