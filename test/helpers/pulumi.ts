import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";

const repo = path.resolve(__dirname, "../..");

/** The pinned toolchain's bin directory (built on first use by the same script `npm run pulumi` uses). */
export function toolchainBinDir(): string {
  return execFileSync("bash", [path.join(repo, "scripts/toolchain/build.sh"), "--print-bin-dir"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

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
  const binDir = toolchainBinDir();
  const stateDir = mkdtempSync(path.join(tmpdir(), "exampledev-e2e-"));
  mkdirSync(path.join(stateDir, "backend"));
  const env: Record<string, string> = {
    PATH: [binDir, path.join(repo, "node_modules/.bin"), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(stateDir, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(stateDir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    ...options.env,
  };
  const pulumiCommand = await PulumiCommand.get({ root: path.dirname(binDir) });
  const stack = await LocalWorkspace.createStack(
    { stackName: options.stackName ?? "e2e", workDir },
    { envVars: env, pulumiCommand },
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
