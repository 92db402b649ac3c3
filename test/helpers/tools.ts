// The tools a platform team points at either backend: the machine's kubectl with a kubeconfig of its own,
// and kstatus (sigs.k8s.io/cli-utils' status.Compute, built by scripts/toolchain/kstatus.sh and cached).
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Backend } from "./backends";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A kubeconfig for a plain-HTTP local server with no token (kubectl sends credentials only over TLS). */
export function plainKubeconfig(url: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: local",
    "  cluster:",
    `    server: ${url}`,
    "users:",
    "- name: local",
    "  user: {}",
    "contexts:",
    "- name: local",
    "  context: {cluster: local, user: local}",
    "current-context: local",
    "",
  ].join("\n");
}

/** A kubeconfig file for the backend: kube-apiserver's admin one, or one written for the local server. */
export function kubeconfigFor(backend: Backend, dir: string): string {
  const configured = backend.config["exampledev:kubeconfig"]?.value;
  if (configured !== undefined) return configured;
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, plainKubeconfig(backend.config["exampledev:baseUrl"]?.value ?? ""));
  return kubeconfig;
}

/** kubectl against a backend, with a HOME of its own (discovery and OpenAPI caches). */
export function kubectlFor(backend: Backend): (...args: string[]) => Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "exampledev-kubectl-"));
  const kubeconfig = kubeconfigFor(backend, dir);
  const env = { PATH: process.env.PATH ?? "", HOME: dir, KUBECONFIG: kubeconfig };
  return (...args) =>
    new Promise((resolve) => {
      execFile("kubectl", args, { env, timeout: 120_000 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
}

/** A Go tool of scripts/toolchain built (once, cached) by its script; the binary's path. */
function goTool(script: string): string {
  return execFileSync("bash", [join(__dirname, "../../scripts/toolchain", script)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/** The client-go program (scripts/toolchain/client-go), built once. */
export const clientGoBinary = () => goTool("client-go.sh");

let kstatusBin: string | undefined;

/** kstatus of each object, by name: Current, InProgress, Failed, Terminating, ... */
export function kstatus(objects: readonly unknown[]): Record<string, { status: string; message: string }> {
  kstatusBin ??= goTool("kstatus.sh");
  const out = execFileSync(kstatusBin, [], {
    input: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
    encoding: "utf8",
  });
  const lines = out.trim().split("\n").filter(Boolean);
  return Object.fromEntries(
    lines.map((line) => {
      const { name, status, message } = JSON.parse(line) as { name: string; status: string; message: string };
      return [name, { status, message }];
    }),
  );
}
