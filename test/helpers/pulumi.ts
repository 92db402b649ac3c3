import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { pinnedPulumi } from "../../scripts/lib/pulumi";

export interface TestStack {
  stack: Stack;
  /** The temporary directory holding the file:// backend and PULUMI_HOME. */
  stateDir: string;
  /** Environment the CLI runs with, e.g. for spawning `pulumi` directly. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * Creates a stack of the Pulumi project in `workDir` on a file:// backend in a fresh temporary directory,
 * driven through the Automation API and the real, pinned CLI.
 */
export async function createTestStack(
  workDir: string,
  options: { stackName?: string; env?: Record<string, string> } = {},
): Promise<TestStack> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "exampledev-e2e-"));
  mkdirSync(path.join(stateDir, "backend"));
  const pulumi = await pinnedPulumi(stateDir, "e2e-passphrase");
  const env = { ...pulumi.env, ...options.env };
  const stack = await LocalWorkspace.createStack(
    { stackName: options.stackName ?? "e2e", workDir },
    { envVars: env, pulumiCommand: pulumi.command },
  );
  return {
    stack,
    stateDir,
    env,
    async dispose() {
      await stack.workspace.removeStack(stack.name, { force: true }).catch(() => undefined);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
