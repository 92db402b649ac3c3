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

export interface StackOptions {
  variant: Variant;
  n: number;
  packageRoot: string;
  /** The server's Proxy deletion grace; undefined keeps the server's default. */
  proxyDeletionGraceMs: number | undefined;
  /**
   * The CLI's TMPDIR, one for the whole benchmark as on a user's machine: what programs and providers keep
   * there between runs (Node's compile cache, which the provider turns on) is kept between rounds too.
   */
  tempDir: string;
}

/**
 * A program's stack on its own fresh API server (in process, in-memory storage) and its own file:// backend.
 * `run` times one operation; the operations go in the order of OPERATIONS.
 */
export interface BenchStack {
  run(operation: Operation): Promise<number>;
  /** The size of the stack's state after `up`, per resource (the engine rewrites it after every step). */
  stateBytesPerResource(): number | undefined;
  dispose(): Promise<void>;
}

export async function openStack({
  variant,
  n,
  packageRoot,
  proxyDeletionGraceMs,
  tempDir,
}: StackOptions): Promise<BenchStack> {
  const dir = mkdtempSync(path.join(tmpdir(), `exampledev-bench-${variant}-`));
  mkdirSync(path.join(dir, "backend"));
  const server = await startServer({
    port: 0,
    storage: "memory",
    logLevel: "silent",
    ...(proxyDeletionGraceMs !== undefined && { proxyDeletionGraceMs }),
  });
  const client = createClient({ baseUrl: server.url });
  const dispose = async () => {
    await client.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const programDir = path.join(dir, "program");
    writeProgram(programDir, variant, packageRoot);
    const pulumi = await pinnedPulumi(dir, "bench");
    const stack = await LocalWorkspace.createStack(
      { stackName: "bench", workDir: programDir },
      { envVars: { ...pulumi.env, TMPDIR: tempDir }, pulumiCommand: pulumi.command },
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
    const operations: Record<Operation, () => Promise<void>> = {
      preview: async () => expectCount("preview", (await stack.preview()).changeSummary.create),
      up: async () => expectCount("up", (await stack.up()).summary.resourceChanges?.create),
      update: async () => expectCount("update", (await stack.up()).summary.resourceChanges?.update, n),
      destroy: async () => expectCount("destroy", (await stack.destroy()).summary.resourceChanges?.delete),
    };
    let stateBytes: number | undefined;
    // What the server holds after an operation (the provider's program only), and the change before update.
    const after: Partial<Record<Operation, () => Promise<void>>> = {
      up: async () => {
        stateBytes = JSON.stringify((await stack.exportStack()).deployment).length;
        if (variant === "provider") {
          const onServer = (await client.proxies.listAll()).length + (await client.services.listAll()).length;
          if (onServer < n - Math.ceil(n / 8))
            throw new Error(`only ${onServer} objects on the server after up`);
        }
        await stack.setConfig("generation", { value: "2" });
      },
      destroy: async () => {
        if ((await client.services.listAll()).length > 0)
          throw new Error("Services left on the server after destroy");
      },
    };
    return {
      async run(operation) {
        const start = performance.now();
        await operations[operation]();
        const elapsed = performance.now() - start;
        await after[operation]?.();
        return elapsed;
      },
      stateBytesPerResource: () => (stateBytes === undefined ? undefined : Math.round(stateBytes / (n + 1))),
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
