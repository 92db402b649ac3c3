// A benchmark program's stack through the pinned Pulumi CLI (Automation API, file:// backend in the stack's
// own directory), its operations timed and checked: each must change every resource the program declares
// (and the stack itself), or its time says nothing.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { pinnedPulumi } from "../scripts/lib/pulumi";

export const OPERATIONS = ["preview", "up", "update", "destroy"] as const;
export type Operation = (typeof OPERATIONS)[number];
export type Timings = Record<Operation, number>;

export interface CliStackOptions {
  /** The stack's directory: its backend goes in `backend/`, the CLI's own files beside it. */
  dir: string;
  programDir: string;
  /** Names the stack in errors. */
  label: string;
  /** The resources the program declares. */
  n: number;
  config: Record<string, string>;
  /** Set over the pinned CLI's environment (TMPDIR, a shared PULUMI_HOME, ...). */
  env: Record<string, string>;
  /** The CLI's version; undefined is the pinned one. */
  pulumiVersion?: string | undefined;
}

export interface CliStack {
  stack: Stack;
  /** Runs the operation, checks what it changed, and returns how long it took (ms). */
  time(operation: Operation): Promise<number>;
}

export async function openCliStack({
  dir,
  programDir,
  label,
  n,
  config,
  env,
  pulumiVersion,
}: CliStackOptions) {
  mkdirSync(path.join(dir, "backend"), { recursive: true });
  const pulumi = await pinnedPulumi(dir, "bench", pulumiVersion);
  const stack = await LocalWorkspace.createStack(
    { stackName: "bench", workDir: programDir },
    { envVars: { ...pulumi.env, ...env }, pulumiCommand: pulumi.command },
  );
  await stack.setAllConfig(
    Object.fromEntries(Object.entries(config).map(([key, value]) => [key, { value }])),
  );
  // The stack itself is created and deleted with the objects.
  const expectCount = (what: string, actual: number | undefined, expected = n + 1) => {
    if (actual !== expected) throw new Error(`${label} ${what}: ${actual} changes, expected ${expected}`);
  };
  const operations: Record<Operation, () => Promise<void>> = {
    preview: async () => expectCount("preview", (await stack.preview()).changeSummary.create),
    up: async () => expectCount("up", (await stack.up()).summary.resourceChanges?.create),
    update: async () => expectCount("update", (await stack.up()).summary.resourceChanges?.update, n),
    destroy: async () => expectCount("destroy", (await stack.destroy()).summary.resourceChanges?.delete),
  };
  return {
    stack,
    async time(operation: Operation) {
      const start = performance.now();
      await operations[operation]();
      return performance.now() - start;
    },
  } satisfies CliStack;
}
