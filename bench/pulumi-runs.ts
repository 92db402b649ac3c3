// One benchmark round of a program through the real Pulumi CLI (Automation API, file:// backend in a
// temporary directory): preview of a new stack, up (create), up after a change to every object (update),
// destroy. Each round gets a fresh API server and a fresh backend.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LocalWorkspace } from "@pulumi/pulumi/automation";
import { pinnedPulumi } from "../scripts/lib/pulumi";
import { createClient } from "../sdk/client";
import { startServer } from "../server";
import { type Variant, writeProgram } from "./programs";

export const OPERATIONS = ["preview", "up", "update", "destroy"] as const;
export type Operation = (typeof OPERATIONS)[number];
export type Timings = Record<Operation, number>;

export interface RoundOptions {
  variant: Variant;
  n: number;
  packageRoot: string;
  /** The server's Proxy deletion grace; undefined keeps the server's default. */
  proxyDeletionGraceMs: number | undefined;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function runRound({
  variant,
  n,
  packageRoot,
  proxyDeletionGraceMs,
}: RoundOptions): Promise<Timings> {
  const dir = mkdtempSync(path.join(tmpdir(), `exampledev-bench-${variant}-`));
  mkdirSync(path.join(dir, "backend"));
  const server = await startServer({
    port: 0,
    storage: "memory",
    logLevel: "silent",
    ...(proxyDeletionGraceMs !== undefined && { proxyDeletionGraceMs }),
  });
  const client = createClient({ baseUrl: server.url });
  try {
    const programDir = path.join(dir, "program");
    writeProgram(programDir, variant, packageRoot);
    const pulumi = await pinnedPulumi(dir, "bench");
    const stack = await LocalWorkspace.createStack(
      { stackName: "bench", workDir: programDir },
      { envVars: pulumi.env, pulumiCommand: pulumi.command },
    );
    await stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      n: { value: String(n) },
      generation: { value: "1" },
    });
    // The stack itself is created and deleted with the objects.
    const expectCount = (what: string, actual: number | undefined, expected = n + 1) => {
      if (actual !== expected) throw new Error(`${variant} ${what}: ${actual} changes, expected ${expected}`);
    };
    const timings: Partial<Timings> = {};
    timings.preview = await timed(async () => {
      const preview = await stack.preview();
      expectCount("preview", preview.changeSummary.create);
    });
    timings.up = await timed(async () => {
      const up = await stack.up();
      expectCount("up", up.summary.resourceChanges?.create);
    });
    if (variant === "provider") {
      const onServer = (await client.proxies.listAll()).length + (await client.services.listAll()).length;
      if (onServer < n - Math.ceil(n / 8)) throw new Error(`only ${onServer} objects on the server after up`);
    }
    await stack.setConfig("generation", { value: "2" });
    timings.update = await timed(async () => {
      const update = await stack.up();
      expectCount("update", update.summary.resourceChanges?.update, n);
    });
    timings.destroy = await timed(async () => {
      const destroy = await stack.destroy();
      expectCount("destroy", destroy.summary.resourceChanges?.delete);
    });
    if (variant === "provider" && (await client.services.listAll()).length > 0)
      throw new Error("Services left on the server after destroy");
    await stack.workspace.removeStack(stack.name, { force: true });
    return timings as Timings;
  } finally {
    await client.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
