import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Agent } from "undici";
import { stringify } from "yaml";
import { startControllerManager } from "./controller-manager";
import { kubeconfigYaml } from "./kubeconfig";
import { type CertFiles, exists, makePki } from "./pki";
import { freePorts, type Started, start, stop, stopLeftovers, waitUntilHealthy } from "./processes";

/**
 * A real Kubernetes control plane on loopback: Debian's etcd, kube-apiserver and kube-controller-manager
 * (built by scripts/toolchain/kube.sh; its garbage collector acts on owner references), with the least that
 * is real: TLS from a CA made for it, a static bearer token for an admin (group system:masters), RBAC, a
 * service-account signing key. Everything lives in one temporary directory, logs included, removed by
 * close().
 */

export interface KubeEnv {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The admin's bearer token. */
  token: string;
  /** The CA that signed the server's certificate, PEM. */
  caCert: string;
  /** A kubeconfig for the admin (`kubectl --kubeconfig`). */
  kubeconfig: string;
  /** etcd's client URL (plain HTTP on loopback); its data is in `<dir>/etcd`. */
  etcdUrl: string;
  /** kube-controller-manager's health endpoint (TLS from the CA; no authentication). */
  controllerManagerHealthz: string;
  /** The temporary directory holding the keys, etcd's data and the logs. */
  dir: string;
  /** An undici dispatcher that trusts the CA. */
  dispatcher: Agent;
  /** Stops the three processes and removes the directory. */
  close(): Promise<void>;
}

const REPO = path.resolve(__dirname, "..").replace(/[/\\]dist$/, "");

/** Where kube-apiserver and kube-controller-manager are, from the script that builds them if missing. */
async function binDir(): Promise<string> {
  const script = path.join(REPO, "scripts/toolchain/kube.sh");
  const { stdout } = await promisify(execFile)("bash", [script, "--print-bin-dir"], { maxBuffer: 1 << 20 });
  return stdout.trim();
}

export interface KubeOptions {
  /**
   * Keep everything in this directory (etcd's data, the keys, the admin token, the ports) and find it again
   * on the next start with the same directory: the objects, and a kubeconfig that still works. Without it,
   * a temporary directory that close() removes.
   */
  dir?: string;
  /**
   * Runs once kube-apiserver is ready and before kube-controller-manager starts: the garbage collector
   * watches the kinds this installs (CRDs) from its start, where a kind added later waits for its next look
   * at discovery (every 30 s).
   */
  beforeControllers?: (env: Omit<KubeEnv, "controllerManagerHealthz" | "close">) => Promise<void>;
}

/** What a kept directory remembers between starts, besides its files of keys and etcd's data. */
interface Remembered {
  token: string;
  ports: [client: number, peer: number, secure: number];
}

const REMEMBERED = "kube.json";

export async function startKube(options: KubeOptions = {}): Promise<KubeEnv> {
  const bin = await binDir();
  const keep = options.dir !== undefined;
  const dir = keep
    ? path.resolve(options.dir as string)
    : await mkdtemp(path.join(tmpdir(), "exampledev-kube-"));
  if (keep) await mkdir(dir, { recursive: true, mode: 0o700 });
  const started: Started[] = [];
  let dispatcher: Agent | undefined;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // In reverse: etcd going away under the API server only fills its log with retries.
      for (const { child } of started.reverse()) await stop(child);
      await dispatcher?.close();
      if (!keep) await rm(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  try {
    // A previous start with this directory whose process was killed may have left its servers running.
    if (keep) await stopLeftovers(dir);
    const pki = await makePki(dir);
    const state = path.join(dir, REMEMBERED);
    const remembered: Remembered = (await exists(state))
      ? JSON.parse(await readFile(state, "utf8"))
      : { token: randomBytes(24).toString("hex"), ports: (await freePorts(3)) as Remembered["ports"] };
    if (keep) await writeFile(state, JSON.stringify(remembered), { mode: 0o600 });
    const { token } = remembered;
    const tokenFile = path.join(dir, "tokens.csv");
    await writeFile(tokenFile, `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });

    const [clientPort, peerPort, securePort] = remembered.ports;
    const etcdUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    // etcd without TLS: it listens on loopback only, and only kube-apiserver talks to it.
    const etcd = start(
      "etcd",
      [
        ...["--name", "kube", "--data-dir", path.join(dir, "etcd")],
        ...["--listen-client-urls", etcdUrl, "--advertise-client-urls", etcdUrl],
        ...["--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl],
        ...["--initial-cluster", `kube=${peerUrl}`],
      ],
      path.join(dir, "etcd.log"),
    );
    started.push(etcd);

    const apiserver = start(
      path.join(bin, "kube-apiserver"),
      [
        `--etcd-servers=${etcdUrl}`,
        "--bind-address=127.0.0.1",
        // Else it derives the address from the default route, and a machine (or network namespace) without
        // one cannot start it.
        "--advertise-address=127.0.0.1",
        `--secure-port=${securePort}`,
        `--cert-dir=${dir}`,
        `--tls-cert-file=${pki.serverCertFile}`,
        `--tls-private-key-file=${pki.serverKeyFile}`,
        `--token-auth-file=${tokenFile}`,
        // Client certificates the environment's CA signed authenticate as their CN (user) and O (groups).
        `--client-ca-file=${pki.caFile}`,
        "--authorization-mode=RBAC",
        `--service-account-key-file=${pki.serviceAccountPublicFile}`,
        `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
        "--service-account-issuer=https://kubernetes.default.svc",
        "--service-cluster-ip-range=10.96.0.0/24",
        // Its reconciler refuses a loopback address for the `kubernetes` Service's endpoints.
        "--endpoint-reconciler-type=none",
        `--encryption-provider-config=${await writeEncryptionConfig(dir)}`,
        `--admission-control-config-file=${await writeAdmissionConfig(dir, pki.webhookClient)}`,
      ],
      path.join(dir, "kube-apiserver.log"),
    );
    started.push(apiserver);

    const url = `https://127.0.0.1:${securePort}`;
    dispatcher = new Agent({ connect: { ca: pki.caCert } });
    // etcd failing to start shows as kube-apiserver never getting ready: race both exits.
    const authorization = { authorization: `Bearer ${token}` };
    await Promise.race([
      waitUntilHealthy(apiserver, `${url}/readyz`, dispatcher, authorization),
      etcd.exited,
    ]);

    const kubeconfig = path.join(dir, "kubeconfig");
    const admin = { name: "admin", credentials: { token } };
    await writeFile(kubeconfig, kubeconfigYaml(url, pki.caCert, admin), { mode: 0o600 });
    const env = { url, token, caCert: pki.caCert, kubeconfig, etcdUrl, dir, dispatcher };
    await options.beforeControllers?.(env);

    const controllerManager = await startControllerManager({
      binary: path.join(bin, "kube-controller-manager"),
      dir,
      pki,
      apiserverUrl: url,
    });
    started.push(controllerManager);
    await Promise.race([
      waitUntilHealthy(controllerManager, controllerManager.healthz, dispatcher),
      apiserver.exited,
      etcd.exited,
    ]);
    return { ...env, controllerManagerHealthz: controllerManager.healthz, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * kube-apiserver authenticates to admission webhooks with the client certificate WEBHOOK_CLIENT_USER (the
 * admission configuration's kubeconfig, whose user `*` matches every webhook), and the webhook answers no
 * other caller: without it, anyone who reaches the webhook could have it mint Secrets.
 */
async function writeAdmissionConfig(dir: string, client: CertFiles): Promise<string> {
  const kubeconfig = path.join(dir, "webhook-client.kubeconfig");
  const user = { "client-certificate": client.certFile, "client-key": client.keyFile };
  await writeFile(kubeconfig, stringify({ apiVersion: "v1", kind: "Config", users: [{ name: "*", user }] }), {
    mode: 0o600,
  });
  const configuration = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "WebhookAdmissionConfiguration",
    kubeConfigFile: kubeconfig,
  };
  const file = path.join(dir, "admission.yaml");
  const config = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: ["MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"].map((name) => ({
      name,
      configuration,
    })),
  };
  await writeFile(file, stringify(config), { mode: 0o600 });
  return file;
}

/**
 * Secrets are encrypted at rest (secretbox, a key made for this environment), so a value the admission
 * webhook moved into a Secret is in neither an answer nor etcd's files. The three kinds are not: after
 * admission they hold placeholders only, and a test reading etcd's files proves it.
 */
async function writeEncryptionConfig(dir: string): Promise<string> {
  const file = path.join(dir, "encryption.yaml");
  // A kept directory's Secrets are encrypted with its key: a new one would make them unreadable.
  if (await exists(file)) return file;
  const config = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "EncryptionConfiguration",
    resources: [
      {
        resources: ["secrets"],
        providers: [
          { secretbox: { keys: [{ name: "key1", secret: randomBytes(32).toString("base64") }] } },
          { identity: {} },
        ],
      },
    ],
  };
  await writeFile(file, stringify(config), { mode: 0o600 });
  return file;
}
