// `npm run generate`: writes every generated file (scripts/lib/generated.ts lists them) from what it is
// generated from. `npm run generate -- --check` writes nothing and fails listing the stale files.
import { parseArgs } from "node:util";
import { GENERATED, reportStale } from "./lib/generated";

function main(): void {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  if (values.check) {
    if (reportStale()) process.exitCode = 1;
    else console.log("generate: every generated file is up to date");
    return;
  }
  // In order, each only when stale: the Node SDK's generator is built (minutes) only when it must run.
  for (const entry of GENERATED) {
    const stale = entry.stale();
    if (stale.length === 0) continue;
    entry.write();
    console.log(`generate: wrote ${stale.join(", ")}`);
  }
  console.log("generate: every generated file is up to date");
}

try {
  main();
} catch (error: unknown) {
  console.error(`generate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
