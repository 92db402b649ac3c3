// Issue 39: `exampledev-policy-report audit` over 10,000 live objects on the local server (memory storage):
// the audit's wall time and peak RSS (GNU time's %M), by page size. Not an assertion; prints the numbers.
// Run: npm run build && npx tsc -p bench/tsconfig.json && node_modules/.bin/node dist/bench/policy-audit.js [--n 10000]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "../sdk/client";
import { KINDS } from "../sdk/schema";
import { startServer } from "../server";
import { type ChildOutput, collectOutput } from "../test/helpers/child-output";

const ROOT = path.resolve(__dirname, "../..");
const MAIN = path.join(ROOT, "dist/policies/report/main.js");
const CONCURRENCY = 16;

function run(args: string[]): Promise<ChildOutput> {
  return collectOutput(spawn("/usr/bin/time", ["-f", "%e %M", process.execPath, MAIN, "audit", ...args]));
}

async function main() {
  const { values } = parseArgs({ options: { n: { type: "string", default: "10000" } } });
  const n = Number(values.n);
  const server = await startServer({ port: 0, storage: "memory", logLevel: "warn" });
  await server.pauseController();
  const client = createClient({ baseUrl: server.url });
  const dir = mkdtempSync(path.join(tmpdir(), "audit-bench-"));
  try {
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) {
          const index = next++;
          // Every tenth object lacks the required label: 10% advisory violations.
          await client.proxies.create({
            apiVersion: KINDS.Proxy.apiVersion,
            kind: "Proxy",
            metadata: { name: `audit-${index}`, ...(index % 10 !== 0 && { labels: { team: "edge" } }) },
            spec: { provider: "cloud" },
          } as never);
        }
      }),
    );
    console.log(`created ${n} Proxies in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const config = path.join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({ "required-labels": { enforcementLevel: "advisory", labels: { team: [] } } }),
    );
    console.log("| page size | format | exit | wall s | peak RSS MiB | violations |");
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const pageSize of [100, 500, 2000]) {
      for (const format of ["json", "text"]) {
        const result = await run([
          "--base-url",
          server.url,
          "--policy-pack-config",
          config,
          "--format",
          format,
          "--page-size",
          String(pageSize),
        ]);
        const [wall, rssKb] = (result.stderr.trim().split("\n").at(-1) ?? "").split(" ");
        const violations = format === "json" ? JSON.parse(result.stdout).violations.length : "";
        console.log(
          `| ${pageSize} | ${format} | ${result.status} | ${wall} | ${(Number(rssKb) / 1024).toFixed(0)} | ${violations} |`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await client.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
