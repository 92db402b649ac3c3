// Where the controller command finds its API server and identity, as client-go's callers do: a kubeconfig
// (`--kubeconfig`, else $KUBECONFIG), else the service account of the pod it runs in.
import { readFileSync } from "node:fs";
import type { ClientOptions } from "../sdk/client";
import { readKubeconfig } from "../sdk/client/kubeconfig";
import { FlagError } from "./flags";

/** Where a pod's service account token and the cluster's CA are mounted. */
const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface ConnectionFlags {
  kubeconfig?: string;
  context?: string;
}

/** The client options the flags and the environment give. Throws `FlagError` or `KubeconfigError`. */
export function connectionOf(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): ClientOptions {
  const file = flags.kubeconfig ?? (env.KUBECONFIG || undefined);
  if (file !== undefined) {
    const { baseUrl, ...credentials } = readKubeconfig(file, {
      ...(flags.context !== undefined && { context: flags.context }),
      contextSetting: "--context",
      tokenSetting: "a user with a token",
    });
    if (baseUrl === undefined) throw new FlagError(`kubeconfig ${file}: its cluster has no server`);
    return { baseUrl, ...credentials };
  }
  if (flags.context !== undefined) throw new FlagError("--context needs --kubeconfig (or $KUBECONFIG)");
  const host = env.KUBERNETES_SERVICE_HOST;
  if (!host)
    throw new FlagError("--kubeconfig: name a kubeconfig file (or run in a pod, with a service account)");
  // Read once: kube-apiserver makes a pod's projected token valid for a year
  // (--service-account-extend-token-expiration, on by default), beyond the hour the kubelet renews it at.
  return {
    baseUrl: `https://${host.includes(":") ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? "443"}`,
    token: readFileSync(`${SERVICE_ACCOUNT_DIR}/token`, "utf8").trim(),
    ca: readFileSync(`${SERVICE_ACCOUNT_DIR}/ca.crt`, "utf8"),
  };
}
