// Issue 47, "any client": pulumi-kubernetes 4.24.1 (the peer the bench builds, scripts/toolchain/peer.sh)
// declares the three kinds as CustomResources and runs preview, up, an update, refresh and destroy against
// both backends, as a team that manages the API with pulumi-kubernetes would. The Service waits with
// `pulumi.com/waitFor: condition=Ready` (the peer compares the condition's observedGeneration with the
// object's generation); the Proxy and the ServiceRevision with the peer's generic await
// (PULUMI_K8S_AWAIT_ALL=true: kstatus' Current). The tests do not build the peer (about 17 minutes cold):
// this file runs once `bash scripts/toolchain/peer.sh` has built it, and says it skipped otherwise.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtPeerToolchain, installPeerPlugin, PEER_VERSION } from "../../scripts/lib/peer";
import { KINDS } from "../../sdk/schema";
import { VALID_SPECS } from "../api/fixtures";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { kubeconfigFor } from "../helpers/tools";

const peer = builtPeerToolchain();
if (!peer) console.log(`pulumi-kubernetes ${PEER_VERSION} is not built: run bash scripts/toolchain/peer.sh`);

const NAMES = { Proxy: "pk-proxy", ServiceRevision: "pk-revision", Service: "pk-service" } as const;

const PROGRAM = `
const pulumi = require("@pulumi/pulumi");
const k8s = require("@pulumi/kubernetes");
const generation = new pulumi.Config().require("generation");
const kinds = ${JSON.stringify(
  Object.fromEntries(
    Object.entries(NAMES).map(([kind, name]) => [
      kind,
      { apiVersion: KINDS[kind as keyof typeof NAMES].apiVersion, name },
    ]),
  ),
)};
const specs = ${JSON.stringify(VALID_SPECS)};
function resource(kind, spec, annotations) {
  const { apiVersion, name } = kinds[kind];
  return new k8s.apiextensions.CustomResource(name, {
    apiVersion, kind, metadata: { name, labels: { generation }, annotations }, spec,
  });
}
resource("Proxy", specs.Proxy);
resource("ServiceRevision", specs.ServiceRevision);
const template = { spec: { ...specs.Service.template.spec, env: [{ name: "GENERATION", value: generation }] } };
resource("Service", { ...specs.Service, template }, { "pulumi.com/waitFor": "condition=Ready" });
`;

function writeProgram(dir: string, nodeModules: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "Pulumi.yaml"),
    "name: peer-kinds\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n",
  );
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "peer-kinds", private: true }));
  writeFileSync(join(dir, "index.js"), PROGRAM);
  symlinkSync(nodeModules, join(dir, "node_modules"));
}

const readyOf = (object: { status?: { conditions?: { type: string; status: string }[] } }) =>
  object.status?.conditions?.find((condition) => condition.type === "Ready")?.status;

(peer ? describe : describe.skip).each(BACKENDS)(
  `pulumi-kubernetes ${PEER_VERSION}, on the %s server`,
  (backendName) => {
    let backend: Backend;
    let test: TestStack;
    let workDir: string;
    const timings: Record<string, number> = {};
    const timed = async <T>(step: string, run: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await run();
      } finally {
        timings[step] = Math.round(performance.now() - started);
      }
    };

    beforeAll(async () => {
      const toolchain = peer as NonNullable<typeof peer>;
      backend = await startBackend(backendName);
      workDir = mkdtempSync(join(tmpdir(), "exampledev-peer-kinds-"));
      const project = join(workDir, "project");
      writeProgram(project, toolchain.nodeModules);
      test = await createTestStack(project, { env: { PULUMI_K8S_AWAIT_ALL: "true" } });
      installPeerPlugin(toolchain, test.env.PULUMI_HOME as string);
      await test.stack.setAllConfig({
        "kubernetes:kubeconfig": { value: kubeconfigFor(backend, workDir) },
        generation: { value: "1" },
      });
    }, 600_000);
    afterAll(async () => {
      console.log(`[${backendName}] pulumi-kubernetes ${PEER_VERSION} ms: ${JSON.stringify(timings)}`);
      await test?.dispose();
      await backend?.close();
      if (workDir) rmSync(workDir, { recursive: true, force: true });
    });

    it("previews the three creates, then up waits until each is Ready by kstatus and the Service's condition", async () => {
      const preview = await timed("preview", () => test.stack.preview());
      expect(preview.changeSummary.create).toBe(4); // the stack and the three objects
      const up = await timed("up", () => test.stack.up());
      expect(up.summary.result).toBe("succeeded");
      const service = await backend.client.services.get(NAMES.Service);
      expect(readyOf(service)).toBe("True");
      expect(service.status?.liveRevision).toBeTruthy();
      expect(readyOf(await backend.client.proxies.get(NAMES.Proxy))).toBe("True");
      expect(await backend.client.serviceRevisions.get(NAMES.ServiceRevision)).toBeTruthy();
    });

    it("updates the Service's template: up waits for the new generation's Ready, whose revision is live", async () => {
      const before = await backend.client.services.get(NAMES.Service);
      await test.stack.setConfig("generation", { value: "2" });
      const up = await timed("update", () => test.stack.up());
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges?.update).toBe(3);
      const after = await backend.client.services.get(NAMES.Service);
      expect(after.metadata.generation).toBeGreaterThan(before.metadata.generation as number);
      expect(after.status?.observedGeneration).toBe(after.metadata.generation);
      expect(readyOf(after)).toBe("True");
      expect(after.status?.liveRevision).not.toBe(before.status?.liveRevision);
      const live = await backend.client.serviceRevisions.get(after.status?.liveRevision as string);
      expect(live.spec.env).toEqual([{ name: "GENERATION", value: "2" }]);
    });

    it("refreshes without changes and destroys everything, leaving the server without the objects", async () => {
      const refresh = await timed("refresh", () => test.stack.refresh());
      expect(refresh.summary.result).toBe("succeeded");
      expect(refresh.summary.resourceChanges).not.toHaveProperty("update");
      const destroy = await timed("destroy", () => test.stack.destroy());
      expect(destroy.summary.result).toBe("succeeded");
      const left = [
        ...(await backend.client.proxies.listAll()),
        ...(await backend.client.services.listAll()),
        ...(await backend.client.serviceRevisions.listAll()),
      ].filter((object) => Object.values(NAMES).includes(object.metadata.name as never));
      expect(left.map((object) => object.metadata.name)).toEqual([]);
    });
  },
);
