/**
 * Infrastructure code without the Pulumi CLI's project workflow: the typed HTTP client for direct calls, and the
 * Automation API for a stack whose program is a function in this file.
 *
 *   EXAMPLEDEV_BASE_URL=http://127.0.0.1:8080 BUNDLE_REPO=127.0.0.1:5000/demo/hello BUNDLE_DIGEST=sha256:... \
 *     npx ts-node index.ts
 *
 * In this repository, from its root, `bash scripts/with-pulumi.sh npx ts-node examples/programmatic/index.ts`
 * with the same variables puts the pinned CLI on PATH and uses the local backend (see README.md here).
 */
import { Service } from "@exampledev/pulumi";
import { createClient, type Service as ServiceObject } from "@exampledev/pulumi/client";
import { LocalWorkspace } from "@pulumi/pulumi/automation";

const baseUrl = required("EXAMPLEDEV_BASE_URL");
const bundle = { repo: required("BUNDLE_REPO"), digest: required("BUNDLE_DIGEST") };
const template = (version: string) => ({
  spec: { runtime: { compatibilityDate: "2026-01-01" }, env: [{ name: "APP_VERSION", value: version }] },
});

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the comment at the top of index.ts)`);
  return value;
}

const hasRevision = (service: ServiceObject | undefined, generation: number) =>
  (service?.status?.observedGeneration ?? 0) >= generation && service?.status?.latestRevision !== undefined;

/** The typed client: create a Service, wait for its revision, list revisions, pin one, clean up. */
async function withClient(): Promise<void> {
  const client = createClient({ baseUrl, token: process.env.EXAMPLEDEV_TOKEN });
  const name = `programmatic-${Date.now().toString(36)}`;
  try {
    await client.services.create({
      metadata: { name },
      spec: { source: { oci: bundle }, template: template("1") },
    });
    const first = await client.services.waitFor(name, (s) => hasRevision(s, 1), { timeoutMs: 60_000 });
    const firstRevision = first?.status?.latestRevision as string;
    console.log(`client: ${name} minted ${firstRevision}`);

    const updated = await client.services.patch(
      name,
      { spec: { template: template("2") } },
      { type: "merge" },
    );
    const second = await client.services.waitFor(
      name,
      (s) => hasRevision(s, updated.metadata.generation ?? 2),
      {
        timeoutMs: 60_000,
      },
    );
    console.log(`client: template v2 minted ${second?.status?.latestRevision}`);

    const revisions = await client.serviceRevisions.listAll({
      labelSelector: `compute.example.dev/service=${name}`,
    });
    console.log(`client: revisions of ${name}: ${revisions.map((r) => r.metadata.name).join(", ")}`);

    await client.services.patch(name, { spec: { liveRevision: firstRevision } }, { type: "merge" });
    const pinned = await client.services.waitFor(name, (s) => s?.status?.liveRevision === firstRevision, {
      timeoutMs: 60_000,
    });
    console.log(`client: pinned, live revision is now ${pinned?.status?.liveRevision}`);
  } finally {
    await client.services.delete(name).catch(() => undefined);
    await client.close();
  }
}

/** The Automation API: a stack whose program is a function, driven from code, outputs read back. */
async function withAutomationApi(): Promise<void> {
  const stack = await LocalWorkspace.createOrSelectStack(
    {
      projectName: "exampledev-programmatic",
      stackName: "dev",
      program: async () => {
        const service = new Service("automated", {
          spec: { source: { oci: bundle }, template: template("1") },
        });
        return { latestRevision: service.latestRevision, liveRevision: service.liveRevision };
      },
    },
    { workDir: __dirname },
  );
  await stack.setConfig("exampledev:baseUrl", { value: baseUrl });
  try {
    const up = await stack.up();
    console.log(
      `automation: latest ${up.outputs.latestRevision?.value}, live ${up.outputs.liveRevision?.value}`,
    );
  } finally {
    await stack.destroy();
  }
}

async function main() {
  await withClient();
  await withAutomationApi();
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
