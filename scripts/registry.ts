// `npm run registry`: a local OCI registry (Debian's docker-registry) on a free loopback port, with a sample
// bundle pushed to it, for running the examples by hand against the local API server. Ctrl-C stops it.
import { parseArgs } from "node:util";
import { pushArtifact, startRegistry } from "./lib/registry";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { path: { type: "string", default: "demo/hello" }, tag: { type: "string", default: "v1" } },
  });
  const registry = await startRegistry();
  const digest = await pushArtifact(registry, {
    path: values.path,
    tag: values.tag,
    content: `sample bundle ${values.path}:${values.tag}`,
  });
  console.log(`registry   ${registry.url}`);
  console.log(`bundleRepo ${registry.repo(values.path)}`);
  console.log(`bundleTag  ${values.tag}`);
  console.log(`digest     ${digest}`);
  console.log("Ctrl-C stops the registry and deletes its storage.");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await registry.stop();
}

main().catch((error: unknown) => {
  console.error(`registry: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
