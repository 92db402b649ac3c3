// The two backends the scale benchmark compares, each as child processes started fresh: the local server
// (`dist/server/main.js --memory`, one Node process, its controller inside) and the project's API on a real
// kube-apiserver (`dist/kube/main.js`: a Node process serving the admission webhook, which starts etcd and
// kube-apiserver as its children and installs the CRDs). Each gives its start time, its processes' RSS,
// an admin's dispatcher and the settings that point the provider at it.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Dispatcher, Pool } from "undici";
import { readKubeconfig } from "../sdk/client/kubeconfig";
import {
  CONCURRENCY,
  rssMb,
  type ServerProcess,
  spawnBareServer,
  spawnServer,
  stop as stopServer,
} from "./server-load";
import { round } from "./stats";

export const BACKENDS = ["local", "kube"] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface Backend {
  name: BackendName;
  url: string;
  /** From spawning the first process to the API answering with the three kinds installed. */
  startMs: number;
  /** Requests as the API's admin (the bearer token and the CA already applied). */
  dispatcher: Dispatcher;
  /** What a raw client needs beside the URL: the CA (PEM) and the admin's bearer token. */
  credentials: { ca?: string; token?: string };
  /** The provider's stack settings that point it at this backend. */
  providerConfig: Record<string, string>;
  /** The kubeconfig of the admin (kube only): what the peer provider is given. */
  kubeconfig?: string;
  /** RSS of each process the backend runs (MB), by process name. */
  rss(): Record<string, number>;
  stop(): Promise<void>;
}

/** kube/env.ts gives kube-apiserver and etcd 10 s each to stop before it kills them. */
const STOP_WAIT_MS = 30_000;

/**
 * Both backends drain a deleted Proxy for 0 s: the drain is a finalizer on both (the controller takes it off),
 * so a Proxy's delete is the mark, the controller's patch and the removal on either, and the default 1 s of
 * draining would only add the same wait to every destroy.
 */
const NO_DRAIN = ["--proxy-deletion-grace", "0"];

async function startLocal(
  packageRoot: string,
  extraArgs: readonly string[],
  controller: boolean,
): Promise<Backend> {
  const begun = performance.now();
  const server: ServerProcess = controller
    ? await spawnServer(packageRoot, "memory", "silent", [...NO_DRAIN, ...extraArgs])
    : await spawnBareServer(packageRoot);
  const startMs = performance.now() - begun;
  return {
    name: "local",
    url: server.url,
    startMs,
    dispatcher: server.pool,
    credentials: {},
    providerConfig: { "exampledev:baseUrl": server.url },
    rss: () => ({ node: rssMb(server.child.pid) }),
    stop: () => stopServer(server),
  };
}

/** The processes whose parent is `pid` (etcd and kube-apiserver under the kube command). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return children;
}

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function processName(pid: number): string {
  return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
}

async function startKube(
  packageRoot: string,
  extraArgs: readonly string[],
  controller: boolean,
): Promise<Backend> {
  const begun = performance.now();
  const args = controller
    ? [path.join(packageRoot, "dist/kube/main.js"), ...NO_DRAIN, ...extraArgs]
    : [path.join(packageRoot, "dist/bench/bare-backend.js"), "kube"];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /^kubeconfig: (\S+)$/m.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`npm run kube exited with ${code} before it was ready`)));
  });
  const startMs = performance.now() - begun;
  const { baseUrl, ca, token } = readKubeconfig(kubeconfig);
  if (baseUrl === undefined || token === undefined) throw new Error(`${kubeconfig}: no server or token`);
  const pool = new Pool(baseUrl, { connections: CONCURRENCY, connect: { ...(ca !== undefined && { ca }) } });
  const authorization = `Bearer ${token}`;
  const dispatcher = pool.compose(
    (dispatch) => (options, handler) =>
      dispatch({ ...options, headers: { ...(options.headers as object), authorization } }, handler),
  );
  return {
    name: "kube",
    url: baseUrl,
    startMs,
    dispatcher,
    credentials: { ...(ca !== undefined && { ca }), token },
    providerConfig: { "exampledev:kubeconfig": kubeconfig },
    kubeconfig,
    rss: () => {
      const pid = child.pid as number;
      const figures: Record<string, number> = { node: rssMb(pid) };
      for (const descendant of childrenOf(pid)) figures[processName(descendant)] = rssMb(descendant);
      return figures;
    },
    stop: async () => {
      await pool.close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      // Its children stay ours to stop if it does not: a SIGKILL would leave them running.
      const children = childrenOf(child.pid as number);
      const stopped = await Promise.race([exited.then(() => true), sleep(STOP_WAIT_MS).then(() => false)]);
      if (!stopped) {
        console.error(`  npm run kube did not stop within ${STOP_WAIT_MS / 1000} s of SIGTERM: killed`);
        for (const pid of children) killIfAlive(pid);
        child.kill("SIGKILL");
        await exited;
        // Its temporary directory (keys, etcd's data, logs), which it removes only when it stops itself.
        rmSync(path.dirname(kubeconfig), { recursive: true, force: true });
      }
    },
  };
}

/**
 * `extraArgs`: flags for the command (the controller's, say), after the benchmark's own. `controller: false`
 * starts the API alone (bare-backend.ts), and `extraArgs` are not used.
 */
export function startBackend(
  name: BackendName,
  packageRoot: string,
  extraArgs: readonly string[] = [],
  { controller = true }: { controller?: boolean } = {},
): Promise<Backend> {
  return name === "local"
    ? startLocal(packageRoot, extraArgs, controller)
    : startKube(packageRoot, extraArgs, controller);
}

/** The sum of a backend's RSS figures. */
export function totalRss(figures: Record<string, number>): number {
  return round(
    Object.values(figures).reduce((sum, mb) => sum + mb, 0),
    1,
  );
}
