import { writeFile } from "node:fs/promises";
import path from "node:path";
import { kubeconfigYaml } from "./kubeconfig";
import { CONTROLLER_MANAGER_USER, type Pki } from "./pki";
import { freePorts, type Supervised, supervise } from "./processes";

/**
 * kube-controller-manager beside kube-apiserver, for the two controllers a cluster's owner references and
 * namespaces need: the garbage collector (dependents go with their owner: Background, Foreground, Orphan)
 * and the namespace controller (a deleted namespace's contents go). It authenticates with a client
 * certificate for `system:kube-controller-manager` (kube/pki.ts); each controller then acts as its own
 * service account with its bootstrap RBAC role, as kubeadm runs them: `system:kube-controller-manager`
 * itself may list and watch everything but delete no custom resource.
 */

const CONTROLLERS = ["garbage-collector-controller", "namespace-controller"];

export interface ControllerManagerOptions {
  binary: string;
  /** The environment's directory (kube/env.ts), where its kubeconfig and log go. */
  dir: string;
  pki: Pki;
  apiserverUrl: string;
}

export interface ControllerManager extends Supervised {
  /** Its health endpoint, which answers 200 once it runs, without authentication. */
  healthz: string;
}

export async function startControllerManager(options: ControllerManagerOptions): Promise<ControllerManager> {
  const { dir, pki } = options;
  const { serving, client } = pki.controllerManager;
  const kubeconfig = path.join(dir, "kube-controller-manager.kubeconfig");
  const user = {
    name: CONTROLLER_MANAGER_USER,
    credentials: { "client-certificate": client.certFile, "client-key": client.keyFile },
  };
  await writeFile(kubeconfig, kubeconfigYaml(options.apiserverUrl, pki.caCert, user), { mode: 0o600 });
  // Its port only answers health checks: a new one each start, never remembered.
  const [port] = await freePorts(1);
  const started = supervise(
    "kube-controller-manager",
    options.binary,
    [
      `--kubeconfig=${kubeconfig}`,
      `--controllers=${CONTROLLERS.join(",")}`,
      "--use-service-account-credentials=true",
      // One instance per environment: no Lease to wait for at start.
      "--leader-elect=false",
      "--bind-address=127.0.0.1",
      `--secure-port=${port}`,
      `--tls-cert-file=${serving.certFile}`,
      `--tls-private-key-file=${serving.keyFile}`,
    ],
    path.join(dir, "kube-controller-manager.log"),
  );
  return Object.assign(started, { healthz: `https://127.0.0.1:${port}/healthz` });
}
