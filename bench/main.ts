// `npm run bench`: how fast the provider applies and destroys compared with the engine on a no-op provider,
// and how fast the local API server answers. Prints medians and ratios and writes every figure as JSON.
// Not part of `npm test`: nothing here is an assertion.
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { benchMinting } from "./minting";
import { options, type Section, USAGE } from "./options";
import { measurePatchBlocking } from "./patch-blocking";
import { measureFloor } from "./request-floor";
import { benchScale } from "./scale";
import {
  benchPulumi,
  benchServer,
  benchWatches,
  printFloor,
  printPatchBlocking,
  printPulumi,
  printServer,
  printWatches,
} from "./sections";

async function main(): Promise<void> {
  let opts: ReturnType<typeof options>;
  try {
    opts = options();
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadavg: loadavg() },
    packageRoot: opts.packageRoot,
  };
  console.error(`benchmarking ${opts.packageRoot}`);
  if ("minting" in opts && opts.minting !== undefined) {
    Object.assign(results, await benchMinting(opts.minting));
    finish(results, opts.out);
    return;
  }
  if (opts.scale !== undefined) {
    Object.assign(results, await benchScale(opts.scale));
    finish(results, opts.out);
    return;
  }
  const runs = (section: Section) => opts.only === undefined || opts.only === section;
  if (runs("pulumi")) {
    // One toolchain keeps its figures under `pulumi`; several, under `pulumi` by label.
    const byToolchain: Record<string, Awaited<ReturnType<typeof benchPulumi>>> = {};
    for (const toolchain of opts.toolchains) {
      console.error(`Pulumi runs, N=${opts.n}, ${opts.reps} repetitions, ${toolchain.label}`);
      const figures = await benchPulumi({ ...opts, toolchain });
      byToolchain[toolchain.label] = figures;
      printPulumi(figures, toolchain.label);
    }
    results.pulumi = opts.toolchains.length === 1 ? Object.values(byToolchain)[0] : byToolchain;
  }
  if (runs("server")) {
    console.error("API server load");
    const figures = await benchServer(opts);
    results.server = figures;
    printServer(figures);
    console.error("the request path against a bare fastify route and undici client");
    const floor = await measureFloor(opts.packageRoot);
    results.requestFloor = floor;
    printFloor(floor);
  }
  if (runs("watch")) {
    console.error("Watches");
    const figures = await benchWatches(opts);
    results.watch = figures;
    printWatches(figures);
  }
  if (runs("event-loop")) {
    console.error("event loop under issue 22's doubling JSON patch");
    const rounds = await measurePatchBlocking(opts.packageRoot, opts.reps);
    results.patchBlocking = rounds;
    printPatchBlocking(rounds);
  }
  finish(results, opts.out);
}

function finish(results: Record<string, unknown>, out: string): void {
  results.loadavgAtEnd = loadavg();
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nEvery figure: ${path.resolve(out)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
