import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePki, signClientCert, signServingCert } from "../../kube/pki";
import { REVIEW_BODY_LIMIT, REVIEW_BYTES_IN_FLIGHT, WEBHOOK_CLIENT_USER } from "../../webhook/server";
import {
  largeProxyReview,
  memoryMiB,
  startWebhookProcess,
  writeNowhereKubeconfig,
} from "../helpers/webhook-process";

/**
 * `exampledev-admission-webhook` as a process, sent 8 reviews of the largest size at once by kube-apiserver's
 * certificate: two are admitted at a time and the others answered 429 before their bodies are kept, so the
 * process grows by a bounded amount, well within the pods' 512Mi (`bench/webhook-memory.ts` prints the
 * figures of a compiled build; here ts-node's compiler sits in the process too, so only the growth is
 * compared). No time is asserted.
 */

const POD_LIMIT_MB = 512;
/** The compiled webhook's RSS when idle, measured with bench/webhook-memory.ts. */
const COMPILED_IDLE_MB = 100;

/** Two thirds of the room under the body limit in the object, one third in the old one. */
function review(uid: string): string {
  const room = REVIEW_BODY_LIMIT - 64 * 1024;
  return largeProxyReview(uid, Math.floor((room * 2) / 3), Math.floor(room / 3));
}

describe("the webhook's memory under the largest reviews", () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;
  let connect: { ca: string; cert: string; key: string };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "webhook-memory-"));
    const pki = await makePki(dir);
    const serving = await signServingCert(dir, "exampledev-admission");
    const client = await signClientCert(dir, WEBHOOK_CLIENT_USER);
    connect = {
      ca: pki.caCert,
      cert: await readFile(client.certFile, "utf8"),
      key: await readFile(client.keyFile, "utf8"),
    };
    // Reviews without secret fields call no cluster: the kubeconfig points nowhere.
    const kubeconfig = writeNowhereKubeconfig(dir);
    ({ child, url } = await startWebhookProcess([
      ...["--port", "0", "--bind-address", "127.0.0.1"],
      ...["--tls-cert", serving.certFile, "--tls-key", serving.keyFile, "--kubeconfig", kubeconfig],
      ...["--client-ca", pki.caFile, "--cert-reload-interval", "0"],
    ]));
  }, 120_000);
  afterAll(async () => {
    child?.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("admits two of 8 at once and grows far less than the pod limit", async () => {
    const pid = child.pid as number;
    // A first review compiles and warms what a review runs, so the growth below is the reviews' own.
    const warm = new Agent({ connect });
    const first = await request(`${url}/admit`, {
      method: "POST",
      dispatcher: warm,
      headers: { "content-type": "application/json" },
      body: review("warm"),
    });
    expect(first.statusCode).toBe(200);
    await first.body.text();
    await warm.close();
    const before = memoryMiB(pid, "VmRSS");
    const agents = Array.from({ length: 8 }, () => new Agent({ connect }));
    const statuses = await Promise.all(
      agents.map(async (dispatcher, i) => {
        const answer = await request(`${url}/admit`, {
          method: "POST",
          dispatcher,
          headers: { "content-type": "application/json" },
          body: review(`r${i}`),
        });
        await answer.body.text();
        return answer.statusCode;
      }),
    );
    const peak = memoryMiB(pid, "VmHWM");
    for (const agent of agents) await agent.close();
    console.log(
      `webhook (ts-node) under 8 reviews of ${(REVIEW_BODY_LIMIT / 1024 / 1024).toFixed(0)} MiB at once: ` +
        `${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB; answers ${statuses.sort().join(" ")}`,
    );
    // As many of the largest reviews as the byte budget holds are admitted at a time (two), the rest 429.
    const atOnce = Math.floor(REVIEW_BYTES_IN_FLIGHT / REVIEW_BODY_LIMIT);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(atOnce);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    // The growth, on top of the compiled webhook's idle size, stays under the pod's limit with room to spare.
    expect(COMPILED_IDLE_MB + (peak - before)).toBeLessThan(POD_LIMIT_MB / 2);
  }, 120_000);
});
