import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LEASE_NAME } from "../../controller/leader-election";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { type Client, createClient } from "../../sdk/client";
import { SECRETS_NAMESPACE } from "../../sdk/schema";
import type { ServiceStatus } from "../../sdk/schema/status";
import { gitSpec } from "../controller/git-fixtures";
import {
  type ControllerProcess,
  freePorts,
  pidOf,
  serving,
  spawnController,
  until,
} from "../helpers/controller-process";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";

/**
 * Git push webhooks on Kubernetes: two replicas of `exampledev-controller` against kube-apiserver, each
 * serving `POST /hooks/git` beside its probes (the secret from `--webhook-secret`'s file for one, from
 * $EXAMPLEDEV_WEBHOOK_SECRET for the other, as deploy/ gives it). A signed push delivered to the leader
 * builds the pushed commit (git polling is off: only the delivery can have started it); the standby answers
 * 503 with Retry-After, and an unsigned delivery is 401.
 */

const SECRET = "kube-hook-secret-4e1d07";

interface Replica {
  process: ControllerProcess;
  hooks: string;
}

async function deliver(url: string, body: string, headers: Record<string, string>) {
  const response = await request(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-github-event": "push", ...headers },
  });
  return {
    status: response.statusCode,
    retryAfter: response.headers["retry-after"],
    body: (await response.body.json()) as Record<string, unknown>,
  };
}

const signature = (body: string) => `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;

describe("git push webhooks served by exampledev-controller on kube-apiserver", () => {
  let api: KubeApi;
  let admin: Client;
  let registry: Registry;
  let repo: TestRepo;
  let dir: string;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "exampledev-kube-hooks-"));
    const secretFile = join(dir, "webhook-secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    [api, registry] = await Promise.all([startKubeApi(), startRegistry()]);
    admin = createClient({ baseUrl: api.url, token: api.token, ca: api.caCert });
    repo = TestRepo.create("kube-hook");
    repo.commit({ "index.js": "v1" });
    const ports = await freePorts(2);
    for (const [index, secretFrom] of [["--webhook-secret", secretFile], []].entries()) {
      const port = ports[index];
      const env: Record<string, string> =
        secretFrom.length === 0 ? { EXAMPLEDEV_WEBHOOK_SECRET: SECRET } : {};
      const args = ["--health-port", String(port), "--health-address", "127.0.0.1", ...secretFrom];
      replicas.push({
        process: spawnController(api.controllerKubeconfig, args, env),
        hooks: `http://127.0.0.1:${port}/hooks/git`,
      });
    }
    // Both answering before the test delivers: the standby may still be starting when the leader has built.
    await Promise.all(
      replicas.map(({ process: replica, hooks }) => serving(replica, new URL("/healthz", hooks).href)),
    );
  });
  afterAll(async () => {
    for (const { process: replica } of replicas)
      if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill("SIGKILL");
    await admin?.close();
    await api?.close();
    await registry?.stop();
    repo?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const lastBuilt = async (name: string) => {
    const status = (await admin.services.get(name)).status as ServiceStatus | undefined;
    return status?.build === undefined ? status?.lastBuild?.commit : undefined;
  };

  it("the leader builds a signed push at once; the standby answers 503, an unsigned delivery 401", async () => {
    const holder = await until("a replica to lead", async () => {
      const lease = await admin.leases.get(SECRETS_NAMESPACE, DEFAULT_LEASE_NAME);
      return lease?.spec.holderIdentity || undefined;
    });
    const leader = replicas.find(({ process }) => process.child.pid === pidOf(holder));
    const standby = replicas.find((replica) => replica !== leader);
    if (!leader || !standby) throw new Error(`no replica has the pid of the lease's holder ${holder}`);

    await admin.services.create({
      metadata: { name: "hooked" },
      spec: gitSpec(repo, registry, "team/hooked"),
    } as never);
    await until("the first build", async () =>
      (await lastBuilt("hooked")) === repo.head() ? true : undefined,
    );

    const next = repo.commit({ "index.js": "v2" });
    const body = JSON.stringify({ ref: "refs/heads/main", after: next, repository: { clone_url: repo.url } });
    const unsigned = await deliver(leader.hooks, body, {});
    expect(unsigned.status).toBe(401);
    expect(unsigned.body).toMatchObject({ kind: "Status", reason: "Unauthorized" });

    const atStandby = await deliver(standby.hooks, body, { "x-hub-signature-256": signature(body) });
    expect(atStandby.status).toBe(503);
    expect(atStandby.retryAfter).toBe("15");
    expect(atStandby.body).toMatchObject({ kind: "Status", reason: "ServiceUnavailable" });

    const startedAt = Date.now();
    const atLeader = await deliver(leader.hooks, body, { "x-hub-signature-256": signature(body) });
    expect(atLeader.status).toBe(202);
    expect(atLeader.body.matched).toEqual(["hooked"]);
    await until("the pushed commit to be built", async () =>
      (await lastBuilt("hooked")) === next ? true : undefined,
    );
    console.log(`[timing] signed push to the leader -> built commit: ${Date.now() - startedAt} ms`);
  });
});
