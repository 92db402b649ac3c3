// Issue 47, on both backends: what the tools a platform team already runs read of the kinds' readiness.
// `kubectl wait --for=condition=Ready` returns for a live Service and a Proxy; kstatus (the real
// sigs.k8s.io/cli-utils v0.37.2 status.Compute, from scripts/toolchain/kstatus) computes Current for them,
// Failed for a Service whose build failed and one pinned to a revision that does not exist, InProgress
// for one whose registry has not answered yet.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READINESS_TYPES } from "../../sdk/schema/status";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { manifest } from "../helpers/server";
import { kstatus, kubectlFor, type Run } from "../helpers/tools";

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;
const TEMPLATE = { spec: { runtime: { compatibilityDate: "2024-09-01" } } };

/** A registry that accepts connections and never answers: a tag on it stays being resolved. */
async function silentRegistry(): Promise<{ host: string; close(): void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    host: `127.0.0.1:${port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe.each(BACKENDS)("readiness read by kubectl and kstatus, on the %s server", (backendName) => {
  let backend: Backend;
  let kubectl: (...args: string[]) => Promise<Run>;
  let registry: Awaited<ReturnType<typeof silentRegistry>>;

  beforeAll(async () => {
    backend = await startBackend(backendName);
    kubectl = kubectlFor(backend);
    registry = await silentRegistry();
    const { client } = backend;
    await client.proxies.create(manifest("Proxy", "wait-edge", {}) as never);
    await client.services.create(
      manifest("Service", "waitme", {
        source: { oci: { repo: "registry.example.dev/team/app", digest: DIGEST } },
        template: TEMPLATE,
      }) as never,
    );
    await client.services.create(
      manifest("Service", "pinned-gone", {
        source: { oci: { repo: "registry.example.dev/team/app", digest: DIGEST } },
        liveRevision: "pinned-gone-0000000000",
        template: TEMPLATE,
      }) as never,
    );
    await client.services.create(
      manifest("Service", "build-fails", {
        source: {
          git: {
            url: "/nonexistent/exampledev/repo.git",
            triggers: {},
            build: { output: { repo: "registry.example.dev/team/built" } },
          },
        },
        template: TEMPLATE,
      }) as never,
    );
    await client.services.create(
      manifest("Service", "minting", {
        source: { oci: { repo: `${registry.host}/team/app`, tag: "v1" } },
        template: TEMPLATE,
      }) as never,
    );
  }, 300_000);
  afterAll(async () => {
    await backend?.close();
    registry?.close();
  });

  it("kubectl wait --for=condition=Ready returns for a minted Service and a Proxy", async () => {
    for (const target of ["services.compute.example.dev/waitme", "proxies.core.example.dev/wait-edge"]) {
      const started = Date.now();
      const run = await kubectl("wait", `--for=condition=${READINESS_TYPES.Ready}`, target, "--timeout=30s");
      expect(run.stderr).toBe("");
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("condition met");
      console.log(`[${backendName}] kubectl wait Ready ${target}: ${Date.now() - started} ms`);
    }
  });

  it("a failed build is Stalled with the build's reason, and one minting is Reconciling", async () => {
    const stalled = await kubectl(
      "wait",
      `--for=condition=${READINESS_TYPES.Stalled}`,
      "services.compute.example.dev/build-fails",
      "--timeout=60s",
    );
    expect(stalled.code, stalled.stderr).toBe(0);
    const failed = await backend.client.services.get("build-fails");
    const condition = failed.status?.conditions?.find((entry) => entry.type === READINESS_TYPES.Stalled);
    expect(condition).toMatchObject({ status: "True", reason: "BuildFailed", observedGeneration: 1 });
    expect(condition?.message).toContain("cannot fetch the repository");

    const reconciling = await kubectl(
      "wait",
      `--for=condition=${READINESS_TYPES.Reconciling}`,
      "services.compute.example.dev/minting",
      "--timeout=60s",
    );
    expect(reconciling.code, reconciling.stderr).toBe(0);
  });

  it("kstatus computes Current, InProgress and Failed for the right states", async () => {
    await expect
      .poll(
        async () => {
          const [services, proxy] = await Promise.all([
            backend.client.services.listAll(),
            backend.client.proxies.get("wait-edge"),
          ]);
          const computed = kstatus([...services, proxy]);
          return Object.fromEntries(Object.entries(computed).map(([name, { status }]) => [name, status]));
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual({
        "wait-edge": "Current",
        waitme: "Current",
        "pinned-gone": "Failed",
        "build-fails": "Failed",
        minting: "InProgress",
      });
    const [minting] = Object.values(kstatus([await backend.client.services.get("minting")]));
    console.log(`[${backendName}] kstatus of a Service awaiting its registry: ${JSON.stringify(minting)}`);
  });
});
