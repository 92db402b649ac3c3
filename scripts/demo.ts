// `npm run demo`: the local API server and an OCI registry on free loopback ports, a sample bundle pushed to
// it, `pulumi up` of examples/quickstart through the real CLI, the revisions listed from the API, a template
// change that mints a new revision, and teardown (or, with --keep, everything left running).
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { LocalWorkspace, type OutputMap, type Stack } from "@pulumi/pulumi/automation";
import { createClient } from "../sdk/client";
import { startServer } from "../server";
import { pinnedPulumi } from "./lib/pulumi";
import { pushArtifact, startRegistry } from "./lib/registry";

const repo = path.resolve(__dirname, "../..").replace(/\/dist$/, "");
const started = Date.now();

function step(text: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
  console.log(`\n[demo ${seconds}s] ${text}`);
}

function show(outputs: OutputMap): void {
  for (const [key, { value }] of Object.entries(outputs)) console.log(`  ${key.padEnd(15)} ${value}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { keep: { type: "boolean", default: false } } });
  const workDir = mkdtempSync(path.join(tmpdir(), "exampledev-demo-"));
  mkdirSync(path.join(workDir, "backend"));
  const cleanups: (() => Promise<unknown>)[] = [
    async () => rmSync(workDir, { recursive: true, force: true }),
  ];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };

  try {
    step("starting the local API server and an OCI registry on loopback");
    const server = await startServer({
      port: 0,
      storage: { dir: path.join(workDir, "data") },
      logLevel: "warn",
    });
    cleanups.push(() => server.close());
    const registry = await startRegistry();
    cleanups.push(() => registry.stop());
    console.log(`  API server  ${server.url}  (data in ${path.join(workDir, "data")})`);
    console.log(`  registry    ${registry.url}`);

    step("pushing a sample bundle");
    const bundleRepo = registry.repo("demo/hello");
    const digest = await pushArtifact(registry, {
      path: "demo/hello",
      tag: "v1",
      content: "hello bundle v1",
    });
    console.log(`  ${bundleRepo}:v1 -> ${digest}`);

    step("pulumi up examples/quickstart (the real Pulumi CLI)");
    // A copy of the example, so its stack config file (Pulumi.demo.yaml) never lands in examples/, where it
    // would sit next to the stacks you create by following the README; node_modules is the repository's.
    const project = path.join(workDir, "quickstart");
    cpSync(path.join(repo, "examples/quickstart"), project, {
      recursive: true,
      filter: (source) => !/Pulumi\.[^/]+\.yaml$/.test(source),
    });
    symlinkSync(path.join(repo, "node_modules"), path.join(workDir, "node_modules"));
    const pulumi = await pinnedPulumi(workDir, "demo");
    const stack: Stack = await LocalWorkspace.createStack(
      { stackName: "demo", workDir: project },
      { envVars: pulumi.env, pulumiCommand: pulumi.command },
    );
    cleanups.push(() => stack.workspace.removeStack(stack.name, { force: true }));
    cleanups.push(() => stack.destroy());
    await stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      bundleRepo: { value: bundleRepo },
      bundleDigest: { value: digest },
    });
    const first = await stack.up({ onOutput: (line) => process.stdout.write(line) });
    step("stack outputs after the first up");
    show(first.outputs);

    const client = createClient({ baseUrl: server.url });
    cleanups.push(() => client.close());
    const listRevisions = async () => {
      const service = first.outputs.serviceName?.value as string;
      const revisions = await client.serviceRevisions.listAll({
        labelSelector: `compute.example.dev/service=${service}`,
      });
      for (const revision of revisions) {
        console.log(
          `  ${revision.metadata.name}  ${revision.spec.bundle.repo}@${revision.spec.bundle.digest}`,
        );
      }
    };
    step("ServiceRevisions listed from the API");
    await listRevisions();

    step("changing the template (greeting) and running up again: a new revision is minted");
    await stack.setConfig("greeting", { value: "bonjour" });
    const second = await stack.up({ onOutput: (line) => process.stdout.write(line) });
    step("stack outputs and ServiceRevisions after the second up");
    show(second.outputs);
    await listRevisions();
    if (second.outputs.liveRevision?.value === first.outputs.liveRevision?.value) {
      throw new Error("the template change did not move the live revision");
    }
    console.log(`\nlive revision: ${second.outputs.liveRevision?.value}`);

    if (values.keep) {
      step("--keep: everything stays up; Ctrl-C tears it down");
      console.log(
        `  PULUMI_BACKEND_URL=${pulumi.env.PULUMI_BACKEND_URL} PULUMI_CONFIG_PASSPHRASE=demo npm run pulumi -- -C ${project} stack output`,
      );
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
    }
    step("tearing down: pulumi destroy, server and registry stopped");
  } finally {
    await cleanUp();
  }
  step("done");
}

main().catch((error: unknown) => {
  console.error(`\n[demo] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
