import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Agent } from "undici";
import { type Apiserver, startApiserver, writeApiserverFiles } from "./apiserver";
import { type Balancer, startBalancer } from "./balancer";
import { type ControllerManager, startControllerManager } from "./controller-manager";
import { type EtcdMember, type EtcdPorts, startEtcd } from "./etcd";
import { kubeconfigYaml } from "./kubeconfig";
import { exists, makePki } from "./pki";
import { freePorts, type Supervised, stopLeftovers, waitUntilHealthy } from "./processes";

/**
 * A real Kubernetes control plane on loopback: etcd (built by scripts/toolchain/etcd.sh), kube-apiserver and
 * kube-controller-manager (built by scripts/toolchain/kube.sh; its garbage collector acts on owner
 * references), with the least that is real: TLS from a CA made for it, a static bearer token for an admin
 * (group system:masters), RBAC, a service-account signing key. One etcd member and one kube-apiserver by
 * default; `etcdMembers` and `apiservers` make it highly available (an etcd cluster, kube-apiservers behind
 * Debian's haproxy, kube/balancer.ts). Everything lives in one directory, logs included, removed by close()
 * unless it was given.
 */

export interface KubeEnv {
  /** `https://127.0.0.1:<port>`: the kube-apiserver, or the balancer in front of several. */
  url: string;
  /** The admin's bearer token. */
  token: string;
  /** The CA that signed the server's certificate, PEM. */
  caCert: string;
  /** A kubeconfig for the admin (`kubectl --kubeconfig`). */
  kubeconfig: string;
  /** The first etcd member's client URL (plain HTTP on loopback); its data is in `<dir>/etcd`. */
  etcdUrl: string;
  /** kube-controller-manager's health endpoint (TLS from the CA; no authentication). */
  controllerManagerHealthz: string;
  /** The directory holding the keys, etcd's data and the logs. */
  dir: string;
  /** An undici dispatcher that trusts the CA. */
  dispatcher: Agent;
  /** kube-apiserver's version (`v1.37.2`) and etcd's (`3.7.3`). */
  versions: { kube: string; etcd: string };
  /** Every process, in start order, each with its log: faults kill and restart them as the same member. */
  processes: Supervised[];
  etcd: EtcdMember[];
  apiservers: Apiserver[];
  balancer?: Balancer;
  controllerManager: ControllerManager;
  /** Stops every process and removes the directory (unless it was given). */
  close(): Promise<void>;
}

const REPO = path.resolve(__dirname, "..").replace(/[/\\]dist$/, "");

interface Toolchain {
  kube: string;
  etcd: string;
  version: string;
  etcdVersion: string;
}

/**
 * Where kube-apiserver, kube-controller-manager and etcd are, from the script that builds them if missing
 * (EXAMPLEDEV_KUBE_VERSION picks the release; one outside the supported range fails here, named).
 */
async function toolchain(): Promise<Toolchain> {
  const script = path.join(REPO, "scripts/toolchain/kube.sh");
  const { stdout } = await promisify(execFile)("bash", [script, "--print-paths"], { maxBuffer: 1 << 20 });
  const lines = new Map(
    stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" ", 2) as [string, string]),
  );
  const value = (key: string) => lines.get(key) ?? "";
  return {
    kube: value("kube"),
    etcd: value("etcd"),
    version: value("version"),
    etcdVersion: value("etcd-version"),
  };
}

export interface KubeOptions {
  /**
   * Keep everything in this directory (etcd's data, the keys, the admin token, the ports) and find it again
   * on the next start with the same directory: the objects, and a kubeconfig that still works. Without it,
   * a temporary directory that close() removes.
   */
  dir?: string;
  /** etcd members (default 1; 3 or 5 for a production-like cluster). */
  etcdMembers?: number;
  /** kube-apiservers (default 1); with more than one, haproxy balances them and `url` is its. */
  apiservers?: number;
  /**
   * Runs once kube-apiserver is ready and before kube-controller-manager starts: the garbage collector
   * watches the kinds this installs (CRDs) from its start, where a kind added later waits for its next look
   * at discovery (every 30 s).
   */
  beforeControllers?: (
    env: Pick<KubeEnv, "url" | "token" | "caCert" | "kubeconfig" | "dir">,
  ) => Promise<void>;
}

/** What a kept directory remembers between starts, besides its files of keys and etcd's data. */
interface Remembered {
  token: string;
  ports: { etcd: EtcdPorts[]; apiservers: number[]; balancer: number | null };
}

const REMEMBERED = "kube.json";

/** The ports a kept directory had (its first format was `[client, peer, secure]`), or new ones. */
async function remember(file: string, etcdMembers: number, apiservers: number): Promise<Remembered> {
  if (await exists(file)) {
    const kept = JSON.parse(await readFile(file, "utf8")) as Remembered | { token: string; ports: number[] };
    const ports = Array.isArray(kept.ports)
      ? {
          etcd: [{ client: kept.ports[0], peer: kept.ports[1] }],
          apiservers: [kept.ports[2]],
          balancer: null,
        }
      : kept.ports;
    if (ports.etcd.length !== etcdMembers || ports.apiservers.length !== apiservers)
      throw new Error(
        `${path.dirname(file)} holds an environment of ${ports.etcd.length} etcd member(s) and ` +
          `${ports.apiservers.length} kube-apiserver(s): start it with --etcd-members ${ports.etcd.length} ` +
          `--apiservers ${ports.apiservers.length}, or use another directory`,
      );
    return { token: kept.token, ports: ports as Remembered["ports"] };
  }
  const free = await freePorts(etcdMembers * 2 + apiservers + (apiservers > 1 ? 1 : 0));
  const take = () => free.shift() as number;
  const etcd = Array.from({ length: etcdMembers }, () => ({ client: take(), peer: take() }));
  return {
    token: randomBytes(24).toString("hex"),
    ports: { etcd, apiservers: Array.from({ length: apiservers }, take), balancer: free.shift() ?? null },
  };
}

export async function startKube(options: KubeOptions = {}): Promise<KubeEnv> {
  const etcdMembers = options.etcdMembers ?? 1;
  const apiserverCount = options.apiservers ?? 1;
  if (!Number.isInteger(etcdMembers) || etcdMembers < 1 || etcdMembers % 2 === 0)
    throw new Error(`etcd members: ${etcdMembers} is not an odd number of at least 1 (1, 3 or 5)`);
  if (!Number.isInteger(apiserverCount) || apiserverCount < 1)
    throw new Error(`kube-apiservers: ${apiserverCount} is not a number of at least 1`);
  const tools = await toolchain();
  const keep = options.dir !== undefined;
  const dir = keep
    ? path.resolve(options.dir as string)
    : await mkdtemp(path.join(tmpdir(), "exampledev-kube-"));
  if (keep) await mkdir(dir, { recursive: true, mode: 0o700 });
  const started: Supervised[] = [];
  let dispatcher: Agent | undefined;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // In reverse: etcd going away under the API server only fills its log with retries.
      for (const process of [...started].reverse()) await process.stop();
      await dispatcher?.close();
      if (!keep) await rm(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  // Any process exiting during the start fails it, with its exit code and its log's last lines.
  const anyExit = () => Promise.race(started.map((process) => process.current.exited));
  try {
    // A previous start with this directory whose process was killed may have left its servers running.
    if (keep) await stopLeftovers(dir);
    const pki = await makePki(dir);
    const state = path.join(dir, REMEMBERED);
    const remembered = await remember(state, etcdMembers, apiserverCount);
    if (keep) await writeFile(state, JSON.stringify(remembered), { mode: 0o600 });
    const { token } = remembered;
    const tokenFile = path.join(dir, "tokens.csv");
    await writeFile(tokenFile, `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });

    const etcd = startEtcd(path.join(tools.etcd, "etcd"), dir, remembered.ports.etcd);
    started.push(...etcd);
    const files = await writeApiserverFiles(dir, pki, tokenFile);
    const apiservers = remembered.ports.apiservers.map((port, index) =>
      startApiserver({
        binary: path.join(tools.kube, "kube-apiserver"),
        ...{ dir, index, count: apiserverCount, port, files },
        etcdUrls: etcd.map((member) => member.clientUrl),
      }),
    );
    started.push(...apiservers);

    dispatcher = new Agent({ connect: { ca: pki.caCert } });
    const authorization = { authorization: `Bearer ${token}` };
    const ready = (process: Supervised, url: string) =>
      Promise.race([
        waitUntilHealthy(process.current, `${url}/readyz`, dispatcher as Agent, authorization),
        anyExit(),
      ]);
    await Promise.all(apiservers.map((server) => ready(server, server.url)));
    let balancer: Balancer | undefined;
    if (remembered.ports.balancer !== null) {
      balancer = await startBalancer(dir, remembered.ports.balancer, pki.caFile, apiservers);
      started.push(balancer);
      await ready(balancer, balancer.url);
    }
    const url = balancer?.url ?? (apiservers[0] as Apiserver).url;

    const kubeconfig = path.join(dir, "kubeconfig");
    const admin = { name: "admin", credentials: { token } };
    await writeFile(kubeconfig, kubeconfigYaml(url, pki.caCert, admin), { mode: 0o600 });
    const etcdUrl = (etcd[0] as EtcdMember).clientUrl;
    const env = { url, token, caCert: pki.caCert, kubeconfig, etcdUrl, dir, dispatcher };
    await options.beforeControllers?.(env);

    const controllerManager = await startControllerManager({
      binary: path.join(tools.kube, "kube-controller-manager"),
      dir,
      pki,
      apiserverUrl: url,
    });
    started.push(controllerManager);
    await Promise.race([
      waitUntilHealthy(controllerManager.current, controllerManager.healthz, dispatcher),
      anyExit(),
    ]);
    return {
      ...env,
      versions: { kube: tools.version, etcd: tools.etcdVersion },
      processes: started,
      etcd,
      apiservers,
      ...(balancer === undefined ? {} : { balancer }),
      controllerManager,
      controllerManagerHealthz: controllerManager.healthz,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
