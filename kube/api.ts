import { readFile } from "node:fs/promises";
import type { SweepOptions } from "./admission/secrets";
import { type AdmissionServer, startAdmissionServer } from "./admission/server";
import { kubeClient } from "./client";
import { type KubeEnv, type KubeOptions, startKube } from "./env";
import { installAdmissionIdentity, installCrds, installWebhook } from "./install";
import { signServingCert } from "./pki";

/**
 * The project's API on a real Kubernetes API server: etcd, kube-apiserver and kube-controller-manager
 * (kube/env.ts), the three kinds as CRDs, and the admission webhook (kube/admission/) serving from this
 * process as its own service account.
 */

export interface KubeApi extends KubeEnv {
  admission: AdmissionServer;
}

export interface KubeApiOptions extends KubeOptions {
  /** How the webhook's Secrets are swept (kube/admission/secrets.ts); defaults suit a long-lived cluster. */
  sweep?: Partial<SweepOptions & { intervalMs: number }>;
}

const SWEEP = { intervalMs: 10_000, graceMs: 60_000 };

export async function startKubeApi(options: KubeApiOptions = {}): Promise<KubeApi> {
  const kube = await startKube({ ...options, beforeControllers: installKinds });
  const admin = kubeClient(kube.url, kube.token, kube.caCert, "exampledev-install");
  let admission: AdmissionServer | undefined;
  const close = async () => {
    await admission?.close();
    await admin.close();
    await kube.close();
  };
  try {
    const token = await installAdmissionIdentity(admin);
    const serving = await signServingCert(kube.dir, "exampledev-admission");
    admission = await startAdmissionServer({
      client: kubeClient(kube.url, token, kube.caCert, "exampledev-admission"),
      cert: await readFile(serving.certFile, "utf8"),
      key: await readFile(serving.keyFile, "utf8"),
      sweep: { ...SWEEP, ...options.sweep },
    });
    await installWebhook(admin, admission.url, kube.caCert);
    return { ...kube, admission, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The CRDs, before kube-controller-manager starts: its garbage collector watches them from its start. */
async function installKinds(env: { url: string; token: string; caCert: string }): Promise<void> {
  const admin = kubeClient(env.url, env.token, env.caCert, "exampledev-install");
  try {
    await installCrds(admin);
  } finally {
    await admin.close();
  }
}
