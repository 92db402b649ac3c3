import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Agent, fetch } from "undici";
import { stringify } from "yaml";
import { makePki } from "./pki";

/**
 * A real Kubernetes API server on loopback: Debian's etcd and kube-apiserver (built by
 * scripts/toolchain/kube.sh), with the least that is real: TLS from a CA made for it, a static bearer
 * token for an admin (group system:masters), RBAC, a service-account signing key. Everything lives in one
 * temporary directory, logs included, removed by close().
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
  /** The temporary directory holding the keys, etcd's data and both logs. */
  dir: string;
  /** An undici dispatcher that trusts the CA. */
  dispatcher: Agent;
  /** Stops both processes and removes the directory. */
  close(): Promise<void>;
}

const REPO = path.resolve(__dirname, "..").replace(/[/\\]dist$/, "");
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/** The directory holding kube-apiserver, from the toolchain script (which builds it if missing). */
async function apiserverBinary(): Promise<string> {
  const script = path.join(REPO, "scripts/toolchain/kube.sh");
  const { stdout } = await promisify(execFile)("bash", [script, "--print-bin-dir"], { maxBuffer: 1 << 20 });
  return path.join(stdout.trim(), "kube-apiserver");
}

/**
 * Free loopback ports, distinct: each is held until all are found (the race until the processes bind them
 * is accepted).
 */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

interface Started {
  child: ChildProcess;
  log: string;
  /** Rejects when the process exits; never resolves. */
  exited: Promise<never>;
}

/** The last lines of a process's log, for an error that says why it stopped. */
async function logTail(log: string): Promise<string> {
  return (await readFile(log, "utf8").catch(() => "")).split("\n").slice(-20).join("\n");
}

function start(command: string, args: string[], log: string): Started {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const out = createWriteStream(log);
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  // A process that exits without close() (an uncaught error, process.exit) must not leave servers behind.
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  const exited = new Promise<never>((_, reject) => {
    child.once("error", reject);
    child.once("exit", async (code, signal) => {
      process.off("exit", kill);
      reject(new Error(`${path.basename(command)} exited (${signal ?? code}):\n${await logTail(log)}`));
    });
  });
  exited.catch(() => {});
  return { child, log, exited };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await gone;
  clearTimeout(timer);
}

async function waitUntilReady(url: string, token: string, dispatcher: Agent, apiserver: Started) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no answer";
  while (Date.now() < deadline) {
    const answer = fetch(`${url}/readyz`, { dispatcher, headers: { authorization: `Bearer ${token}` } })
      .then(async (response) => ({ status: response.status, body: await response.text() }))
      .catch((error: unknown) => ({ status: 0, body: String(error) }));
    const { status, body } = await Promise.race([answer, apiserver.exited]);
    if (status === 200) return;
    last = `${status} ${body.slice(0, 500)}`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `kube-apiserver was not ready after ${READY_TIMEOUT_MS / 1000}s: ${last}\n${await logTail(apiserver.log)}`,
  );
}

export interface KubeOptions {
  /**
   * Keep everything in this directory (etcd's data, the keys, the admin token, the ports) and find it again
   * on the next start with the same directory: the objects, and a kubeconfig that still works. Without it,
   * a temporary directory that close() removes.
   */
  dir?: string;
}

/** What a kept directory remembers between starts, besides its files of keys and etcd's data. */
interface Remembered {
  token: string;
  ports: [client: number, peer: number, secure: number];
}

const REMEMBERED = "kube.json";

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

export async function startKube(options: KubeOptions = {}): Promise<KubeEnv> {
  const binary = await apiserverBinary();
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
      // The API server first: etcd going away under it only fills its log with retries.
      for (const { child } of started.reverse()) await stop(child);
      await dispatcher?.close();
      if (!keep) await rm(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  try {
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
      binary,
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
      ],
      path.join(dir, "kube-apiserver.log"),
    );
    started.push(apiserver);

    const url = `https://127.0.0.1:${securePort}`;
    dispatcher = new Agent({ connect: { ca: pki.caCert } });
    // etcd failing to start shows as kube-apiserver never getting ready: race both exits.
    await Promise.race([waitUntilReady(url, token, dispatcher, apiserver), etcd.exited]);

    const kubeconfig = path.join(dir, "kubeconfig");
    await writeFile(kubeconfig, kubeconfigYaml(url, pki.caCert, "admin", token), { mode: 0o600 });
    return { url, token, caCert: pki.caCert, kubeconfig, etcdUrl, dir, dispatcher, close };
  } catch (error) {
    await close();
    throw error;
  }
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

/** A kubeconfig for `user` (a bearer token) on this environment's API server. */
export function kubeconfigYaml(server: string, caCert: string, user: string, token: string): string {
  const name = "exampledev-kube";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name, cluster: { server, "certificate-authority-data": Buffer.from(caCert).toString("base64") } },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [{ name, context: { cluster: name, user } }],
    "current-context": name,
  });
}
