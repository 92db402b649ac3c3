import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { connect } from "node:tls";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMISSION_IDENTITY } from "../../deploy/identities";
import { installKinds } from "../../kube/api";
import { type KubeEnv, startKube } from "../../kube/env";
import { installIdentity, installWebhook } from "../../kube/install";
import { kubeconfigYaml } from "../../kube/kubeconfig";
import { type CertFiles, signServingCert } from "../../kube/pki";
import { createRawClient, type RawClient } from "../../sdk/client/raw";
import { KINDS, PLACEHOLDERS, SECRET_ANNOTATION, SECRETS_NAMESPACE } from "../../sdk/schema";

/**
 * `exampledev-admission-webhook` as its own process, as deploy/ runs it: kube-apiserver (no in-process
 * webhook here) calls it through a webhook configuration with a `url:` (a pod would be behind the Service),
 * and it mints Secrets as the webhook's service account, read from a kubeconfig.
 */

const REPO = path.resolve(__dirname, "../..");
const PROXIES = `/apis/${KINDS.Proxy.apiVersion}/${KINDS.Proxy.plural}`;

interface WebhookProcess {
  child: ChildProcess;
  url: Promise<string>;
  exited: Promise<number | null>;
  output(): string;
}

function spawnWebhook(args: string[]): WebhookProcess {
  const child = spawn(process.execPath, ["-r", "ts-node/register", "webhook/main.ts", ...args], {
    cwd: REPO,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const served = /"url":"(https:\/\/[^"]+)"/.exec(output);
      if (served) resolve(served[1] as string);
    });
    child.once("exit", () => reject(new Error(`the webhook exited before serving:\n${output}`)));
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, url, exited, output: () => output };
}

/** The serial number of the certificate `url` serves. */
function servedSerial(url: string, ca: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca }, () => {
      resolve(socket.getPeerCertificate().serialNumber);
      socket.end();
    });
    socket.once("error", reject);
  });
}

describe("exampledev-admission-webhook on kube-apiserver", () => {
  let kube: KubeEnv;
  let admin: RawClient;
  let serving: CertFiles;
  let webhook: WebhookProcess;
  let url: string;
  let dispatcher: Agent;

  beforeAll(async () => {
    kube = await startKube({ beforeControllers: installKinds });
    admin = createRawClient({
      baseUrl: kube.url,
      token: kube.token,
      ca: kube.caCert,
      userAgent: "webhook-command-test",
    });
    const token = await installIdentity(admin, ADMISSION_IDENTITY);
    const kubeconfig = path.join(kube.dir, "webhook.kubeconfig");
    await writeFile(
      kubeconfig,
      kubeconfigYaml(kube.url, kube.caCert, { name: ADMISSION_IDENTITY.name, credentials: { token } }),
      { mode: 0o600 },
    );
    serving = await signServingCert(kube.dir, "webhook-command");
    webhook = spawnWebhook([
      ...["--tls-cert", serving.certFile, "--tls-key", serving.keyFile],
      ...["--port", "0", "--bind-address", "127.0.0.1", "--kubeconfig", kubeconfig],
      ...["--cert-reload-interval", "1"],
    ]);
    url = await webhook.url;
    dispatcher = new Agent({ connect: { ca: kube.caCert } });
    // Returns once kube-apiserver calls it.
    await installWebhook(admin, url, kube.caCert);
  });
  afterAll(async () => {
    if (webhook?.child.exitCode === null) webhook.child.kill("SIGKILL");
    await dispatcher?.close();
    await admin?.close();
    await kube?.close();
  });

  it("answers /healthz and /readyz with 200", async () => {
    for (const endpoint of ["/healthz", "/readyz"]) {
      const answer = await request(`${url}${endpoint}`, { dispatcher });
      expect([endpoint, answer.statusCode, await answer.body.text()]).toEqual([endpoint, 200, "ok"]);
    }
  });

  it("admits a Proxy with a secret value, keeping the value in a Secret it mints", async () => {
    const created = await admin.ok<{ spec: unknown; metadata: { annotations?: Record<string, string> } }>(
      "POST",
      PROXIES,
      {
        apiVersion: KINDS.Proxy.apiVersion,
        kind: "Proxy",
        metadata: { name: "with-key" },
        spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "the-key-value" } } } },
      },
    );
    expect(created.spec).toMatchObject({
      telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: PLACEHOLDERS.apiKey } } },
    });
    const secretName = created.metadata.annotations?.[SECRET_ANNOTATION];
    expect(secretName).toBeDefined();
    const secret = await admin.ok<{ data: Record<string, string> }>(
      "GET",
      `/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets/${secretName}`,
    );
    const values = Object.values(secret.data).map((value) => Buffer.from(value, "base64").toString());
    expect(values).toEqual(["the-key-value"]);
  });

  it("refuses an invalid Proxy with 422 and the field path", async () => {
    const refused = await admin.call("POST", PROXIES, {
      apiVersion: KINDS.Proxy.apiVersion,
      kind: "Proxy",
      metadata: { name: "invalid" },
      // drainTimeout beyond minimumDrainTime: a rule only the webhook says.
      spec: { shutdown: { drainTimeout: "60s", minimumDrainTime: "10s" } },
    });
    const body = refused.body as { message: string; details: { causes: { field: string }[] } };
    expect(refused.status).toBe(422);
    expect(body.message).toMatch(/^admission webhook "admit\.exampledev\.example\.dev" denied the request: /);
    expect(body.details.causes.map(({ field }) => field)).toContain("spec.shutdown.minimumDrainTime");
  });

  it("serves a renewed certificate once its files change", async () => {
    const before = await servedSerial(url, kube.caCert);
    // The same files, signed again (a new serial), as a renewed Secret's volume shows them.
    await signServingCert(kube.dir, "webhook-command");
    await expect
      .poll(() => servedSerial(url, kube.caCert), { timeout: 15_000, interval: 200 })
      .not.toBe(before);
    expect(webhook.output()).toContain("serving the renewed certificate");
    const answer = await request(`${url}/readyz`, { dispatcher });
    expect(answer.statusCode).toBe(200);
    await answer.body.dump();
  });

  it("stops on SIGTERM with exit code 0", async () => {
    webhook.child.kill("SIGTERM");
    expect(await webhook.exited).toBe(0);
    expect(webhook.output()).toContain('"msg":"stopping"');
  });
});
