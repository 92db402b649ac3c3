// One benchmark round of a program through the real Pulumi CLI (Automation API, file:// backend in a
// temporary directory): preview of a new stack, up (create), up after a change to every object (update),
// destroy. Each round gets a fresh API server and a fresh backend.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "../sdk/client";
import { startServer } from "../server";
import { type Operation, openCliStack } from "./cli-stack";
import { type Variant, writeProgram } from "./programs";
import type { Toolchain } from "./toolchains";

export { OPERATIONS, type Operation, type Timings } from "./cli-stack";

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
  toolchain: Toolchain;
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
  toolchain,
}: StackOptions): Promise<BenchStack> {
  const dir = mkdtempSync(path.join(tmpdir(), `exampledev-bench-${variant}-`));
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
    const { stack, time } = await openCliStack({
      dir,
      programDir,
      label: variant,
      n,
      config: { "exampledev:baseUrl": server.url, n: String(n), generation: "1" },
      env: { ...toolchain.env, TMPDIR: tempDir },
      pulumiVersion: toolchain.pulumiVersion,
    });
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
        const elapsed = await time(operation);
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
