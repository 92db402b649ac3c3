// The admission webhook's memory under the largest reviews (issue 36, point 2): for each of 1, 4 and 8 reviews
// sent at once, a fresh `exampledev-admission-webhook` process (webhook/main.ts) over HTTPS, its RSS
// idle, its peak (VmHWM) and its RSS `afterMs` after, and the answers' status codes. A review is an UPDATE
// (dry run) of a Proxy whose object and oldObject fill the body to just under the webhook's limit; such a
// review calls no cluster (no secret fields), so the kubeconfig points nowhere.
//
//   node -r ts-node/register bench/webhook-memory.ts [bodyBytes=REVIEW_BODY_LIMIT-64kB] [--no-client-cert]
//
// --no-client-cert starts the webhook without --client-ca (a version without client authentication).
// BENCH_WEBHOOK_MAIN=<dir>/kube/admission/main.js runs a compiled build (`tsc -p tsconfig.build.json
// --outDir <dir>`; of an older commit too, from `git archive`), as a pod runs it. No figure is asserted.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, request } from "undici";
import { makePki, signClientCert, signServingCert } from "../kube/pki";
import {
  largeProxyReview,
  memoryMiB,
  startWebhookProcess,
  writeNowhereKubeconfig,
} from "../test/helpers/webhook-process";
import { WEBHOOK_CLIENT_USER } from "../webhook/server";

const args = process.argv.slice(2);
const noClientCert = args.includes("--no-client-cert");
const [bodyText] = args.filter((arg) => !arg.startsWith("--"));
const LIMIT = 5 * 1024 * 1024;
const bodyBytes = Number(bodyText ?? LIMIT - 64 * 1024);
const afterMs = 5_000;

const mb = (pid: number, field: "VmRSS" | "VmHWM") => Math.round(memoryMiB(pid, field));

/** Two thirds in the object, one third in the old one (a client's body up to 3 MiB, a stored object 1.5 MiB). */
function review(uid: string): string {
  const room = bodyBytes - 2_000; // the review's own fields
  return largeProxyReview(uid, Math.floor(room * (2 / 3)), Math.floor(room * (1 / 3)));
}

async function run(dir: string, concurrent: number): Promise<Record<string, unknown>> {
  const serving = await signServingCert(dir, "exampledev-admission");
  const client = await signClientCert(dir, WEBHOOK_CLIENT_USER);
  const kubeconfig = writeNowhereKubeconfig(dir);
  const flags = [
    ...["--tls-cert", serving.certFile, "--tls-key", serving.keyFile, "--port", "0"],
    ...["--bind-address", "127.0.0.1", "--kubeconfig", kubeconfig, "--cert-reload-interval", "0"],
    ...(noClientCert ? [] : ["--client-ca", path.join(dir, "ca.crt")]),
  ];
  // Compiled JavaScript measures what a pod runs (ts-node's compiler adds 200 MB and more to the RSS).
  const { child, url } = await startWebhookProcess(flags, {
    main: process.env.BENCH_WEBHOOK_MAIN,
    stderr: "inherit",
  });
  const pid = child.pid as number;
  try {
    const ca = await readFile(path.join(dir, "ca.crt"), "utf8");
    const connect = noClientCert
      ? { ca }
      : { ca, cert: await readFile(client.certFile, "utf8"), key: await readFile(client.keyFile, "utf8") };
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idleMb = mb(pid, "VmRSS");
    const bodies = Array.from({ length: concurrent }, (_, i) => review(`r${i}`));
    const agents = bodies.map(() => new Agent({ connect }));
    const statuses = await Promise.all(
      bodies.map(async (body, i) => {
        const answer = await request(`${url}/admit`, {
          method: "POST",
          dispatcher: agents[i],
          headers: { "content-type": "application/json" },
          body,
        });
        await answer.body.text();
        return answer.statusCode;
      }),
    );
    const peakMb = mb(pid, "VmHWM");
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    for (const agent of agents) await agent.close();
    const counts: Record<number, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    return {
      concurrent,
      bodyMiB: +(bodyBytes / 1024 / 1024).toFixed(2),
      idleMb,
      peakMb,
      [`rssAfter${afterMs / 1000}sMb`]: mb(pid, "VmRSS"),
      statuses: counts,
    };
  } finally {
    child.kill("SIGKILL");
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "bench-webhook-"));
  try {
    await makePki(dir);
    for (const concurrent of [1, 4, 8]) console.log(JSON.stringify(await run(dir, concurrent)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
