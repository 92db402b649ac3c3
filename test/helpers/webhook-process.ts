import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const REPO = path.resolve(__dirname, "../..");

/**
 * `exampledev-admission-webhook` (webhook/main.ts) as a child process, and the reviews that measure it: what
 * test/kube/webhook-memory.test.ts asserts and bench/webhook-memory.ts prints.
 */

/** Writes a kubeconfig whose cluster nobody serves, for a webhook whose reviews call no cluster. */
export function writeNowhereKubeconfig(dir: string): string {
  const file = path.join(dir, "nowhere.kubeconfig");
  writeFileSync(
    file,
    "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n" +
      "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
  );
  return file;
}

/**
 * Starts the webhook with `flags`, from its TypeScript source through ts-node or from `main`, a compiled
 * entry point; resolves with the process and the URL it logs once it serves. Its stderr goes to this
 * process's when `stderr` is "inherit".
 */
export async function startWebhookProcess(
  flags: readonly string[],
  { main, stderr = "pipe" }: { main?: string; stderr?: "pipe" | "inherit" } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const entry = main === undefined ? ["-r", "ts-node/register", "webhook/main.ts"] : [main];
  const child = spawn(process.execPath, [...entry, ...flags], {
    cwd: REPO,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true", NODE_PATH: path.join(REPO, "node_modules") },
    stdio: ["ignore", "pipe", stderr],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const served = /"url":"(https:\/\/[^"]+)"/.exec(output);
      if (served?.[1]) resolve(served[1]);
    });
    child.once("exit", (code) => reject(new Error(`the webhook exited (${code}):\n${output}`)));
  });
  return { child, url };
}

/** The AdmissionReview kube-apiserver sends the webhook about a Proxy: `request` with the Proxy's kind. */
export function proxyReview({
  uid,
  ...request
}: { uid: string; operation: string } & Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid, kind: { group: "core.example.dev", version: "v1alpha2", kind: "Proxy" }, ...request },
  });
}

/**
 * A review of an UPDATE (dry run) of a Proxy whose object and old object each carry a string of the given
 * length: the largest reviews, which call no cluster (no secret fields).
 */
export function largeProxyReview(uid: string, objectBytes: number, oldObjectBytes: number): string {
  const proxy = (bytes: number) => ({
    apiVersion: "core.example.dev/v1alpha2",
    kind: "Proxy",
    metadata: { name: "big", uid: "u-big", resourceVersion: "1" },
    spec: { telemetry: { accessLogs: { json: { seed: "x".repeat(bytes) } } } },
  });
  return proxyReview({
    uid,
    operation: "UPDATE",
    dryRun: true,
    object: proxy(objectBytes),
    oldObject: proxy(oldObjectBytes),
  });
}

/** A memory figure of a process from /proc/<pid>/status (its RSS, or its peak RSS), in MiB. */
export function memoryMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((text) => text.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}
