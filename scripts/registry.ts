// `npm run registry`: a local OCI registry (Debian's docker-registry) on a loopback port (5000 unless --port says
// otherwise; 0 picks a free one), with a sample bundle pushed to it, for running the examples by hand against
// the local API server. The bundle's content is fixed, so its digest is the same on every start. Ctrl-C or one
// SIGTERM stops the registry and deletes its storage.
import { parseArgs } from "node:util";
import { pushArtifact, startRegistry } from "./lib/registry";

const USAGE = "usage: npm run registry -- [--port 5000] [--path demo/hello] [--tag v1]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "5000" },
      path: { type: "string", default: "demo/hello" },
      tag: { type: "string", default: "v1" },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port: "${values.port}" is not a port (0-65535)\n${USAGE}`);
  }
  const registry = await startRegistry({ port });
  const stopped = new Promise<void>((resolve) => {
    // Further signals while stopping (npm forwards the terminal's Ctrl-C, which this process also gets) are
    // the same request: stop() kills docker-registry within seconds in any case.
    process.on("SIGINT", () => resolve());
    process.on("SIGTERM", () => resolve());
  });
  try {
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
    await stopped;
  } finally {
    await registry.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`registry: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
