import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Agent, type Dispatcher } from "undici";
import { stringify } from "yaml";
import { startKubeApi } from "../../../kube/api";
import {
  type CallOptions,
  call,
  type Json,
  type Method,
  type Reply,
  startTestServer,
} from "../../helpers/server";
import { type OpenWatch, openWatch } from "../../helpers/watch";

const run = promisify(execFile);

export type BackendName = "local" | "kube";

/**
 * One server the conformance suite runs against: where it is, how to authenticate and trust it, and a
 * kubeconfig for kubectl and @kubernetes/client-node. Tests share one backend per file; they keep apart
 * by names (and labels) of their own, so nothing is reset between them.
 */
export interface Backend {
  name: BackendName;
  url: string;
  /** The Authorization header every request carries (none on the local server). */
  headers: Record<string, string>;
  /** Trusts the backend's CA (kube) or is the default (local, plain HTTP). */
  dispatcher: Dispatcher | undefined;
  kubeconfig: string;
  call(method: Method, path: string, options?: CallOptions): Promise<Reply<Json>>;
  watch(path: string): Promise<OpenWatch>;
  kubectl(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/**
 * The local server is given a watch history short enough (in events) for the suite to outrun it, as it
 * outruns kube-apiserver's (whose watch cache starts after the CRDs were made, far beyond resourceVersion 1).
 */
export const LOCAL_HISTORY_SIZE = 50;

/**
 * The local server in this process, without a token: kubectl sends a kubeconfig's credentials only over
 * TLS, and the local server speaks plain HTTP (its token check has tests of its own).
 */
export async function startLocalBackend(): Promise<Backend> {
  const server = await startTestServer({ watch: { historySize: LOCAL_HISTORY_SIZE } });
  const dir = await mkdtemp(path.join(tmpdir(), "exampledev-conformance-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  await writeFile(kubeconfig, localKubeconfig(server.url), { mode: 0o600 });
  return backend("local", server.url, {}, undefined, kubeconfig, async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
}

/**
 * etcd + kube-apiserver + kube-controller-manager with the CRDs Established and the admission webhook
 * called (startKubeApi), as a deployment runs them.
 */
export async function startKubeBackend(): Promise<Backend> {
  const kube = await startKubeApi({ drainProxies: false });
  const dispatcher = new Agent({ connect: { ca: kube.caCert } });
  const headers = { authorization: `Bearer ${kube.token}` };
  return backend("kube", kube.url, headers, dispatcher, kube.kubeconfig, async () => {
    await dispatcher.close();
    await kube.close();
  });
}

function backend(
  name: BackendName,
  url: string,
  headers: Record<string, string>,
  dispatcher: Dispatcher | undefined,
  kubeconfig: string,
  close: () => Promise<void>,
): Backend {
  return {
    name,
    url,
    headers,
    dispatcher,
    kubeconfig,
    call: (method, target, options) => call(url, method, target, options, headers, dispatcher),
    watch: (target) => openWatch(url, target, headers, dispatcher),
    kubectl: async (...args) => (await run("kubectl", [`--kubeconfig=${kubeconfig}`, ...args])).stdout,
    close,
  };
}

function localKubeconfig(server: string): string {
  const name = "exampledev-local";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    // Plain HTTP: @kubernetes/client-node refuses it unless told to skip TLS verification (there is none).
    clusters: [{ name, cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name: "admin", user: {} }],
    contexts: [{ name, context: { cluster: name, user: "admin" } }],
    "current-context": name,
  });
}
