// The local server over TLS (server/tls.ts) with a token: kubectl sends a kubeconfig's token only over
// TLS, so this is what makes a server started with --token usable from kubectl. A self-signed certificate
// made at start, its own CA in the kubeconfig; the wrong token is refused as kube-apiserver refuses it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../server";
import { selfSignedCertificate } from "../../server/tls";
import type { Run } from "../helpers/tools";

const TOKEN = "tls-token-5d2e";

describe("kubectl with a token against the local server over TLS", () => {
  let server: RunningServer;
  let dir: string;
  let ca: string;

  beforeAll(async () => {
    const tls = selfSignedCertificate(["127.0.0.1"]);
    ca = tls.cert;
    server = await startServer({ port: 0, storage: "memory", logLevel: "warn", token: TOKEN, tls });
    dir = mkdtempSync(join(tmpdir(), "exampledev-kubectl-tls-"));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function kubectl(token: string, ...args: string[]): Promise<Run> {
    const kubeconfig = join(dir, `kubeconfig-${token}`);
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [
          {
            name: "local",
            cluster: { server: server.url, "certificate-authority-data": Buffer.from(ca).toString("base64") },
          },
        ],
        users: [{ name: "local", user: { token } }],
        contexts: [{ name: "local", context: { cluster: "local", user: "local" } }],
        "current-context": "local",
      }),
    );
    return new Promise((resolve) =>
      execFile(
        "kubectl",
        args,
        { env: { PATH: process.env.PATH ?? "", HOME: dir, KUBECONFIG: kubeconfig }, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
  }

  it("serves https and works with the token, and refuses another", async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const proxy = JSON.stringify({
      apiVersion: "core.example.dev/v1alpha2",
      kind: "Proxy",
      metadata: { name: "tls-edge" },
      spec: {},
    });
    writeFileSync(join(dir, "proxy.json"), proxy);
    const created = await kubectl(TOKEN, "create", "-f", join(dir, "proxy.json"));
    expect(created.code, created.stderr).toBe(0);
    const waited = await kubectl(
      TOKEN,
      "wait",
      "--for=condition=Ready",
      "proxies.core.example.dev/tls-edge",
      "--timeout=30s",
    );
    expect(waited.code, waited.stderr).toBe(0);
    const got = await kubectl(TOKEN, "get", "proxies.core.example.dev");
    expect(got.stdout).toMatch(/tls-edge\s+cloud\s+True/);
    const refused = await kubectl("wrong-token", "get", "proxies.core.example.dev");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
