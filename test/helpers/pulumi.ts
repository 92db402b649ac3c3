import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { pinnedPulumi } from "../../scripts/lib/pulumi";

const REPO = path.resolve(__dirname, "../..");
const FIXTURES = path.join(REPO, "test/e2e/fixtures");

export interface TestStack {
  stack: Stack;
  /** The project directory the stack runs in (for a fixture, its private copy): `cwd` for a direct CLI run. */
  dir: string;
  /** The temporary directory holding the file:// backend and PULUMI_HOME. */
  stateDir: string;
  /** Environment the CLI runs with, e.g. for spawning `pulumi` directly. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

const isInside = (dir: string, parent: string) => !path.relative(parent, dir).startsWith("..");

/**
 * Creates a stack of the Pulumi project in `workDir` on a file:// backend in a fresh temporary directory,
 * driven through the Automation API and the real, pinned CLI (or the CLI of `pulumiVersion`).
 *
 * A fixture of test/e2e/fixtures runs from a copy in that directory: its stack settings
 * (`Pulumi.<stack>.yaml`) are written beside its Pulumi.yaml, and test files running at the same time use
 * the same fixtures under the same stack names. The copy resolves packages through a link to the
 * repository's node_modules, as the fixture does from its place in the tree. `npm run typecheck` checks the
 * fixtures (tsconfig.json; package-install's is a user's project, installed elsewhere by its test), so the
 * CLI runs their TypeScript without checking it again: seconds of CPU a run.
 */
export async function createTestStack(
  workDir: string,
  options: { stackName?: string; env?: Record<string, string>; pulumiVersion?: string } = {},
): Promise<TestStack> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "exampledev-e2e-"));
  mkdirSync(path.join(stateDir, "backend"));
  const fixture = isInside(workDir, FIXTURES);
  const dir = fixture ? privateCopy(workDir, stateDir) : workDir;
  const pulumi = await pinnedPulumi(stateDir, "e2e-passphrase", options.pulumiVersion);
  const env = { ...pulumi.env, ...(fixture && { PULUMI_NODEJS_TRANSPILE_ONLY: "true" }), ...options.env };
  const stack = await LocalWorkspace.createStack(
    { stackName: options.stackName ?? "e2e", workDir: dir },
    { envVars: env, pulumiCommand: pulumi.command },
  );
  return {
    stack,
    dir,
    stateDir,
    env,
    async dispose() {
      await stack.workspace.removeStack(stack.name, { force: true }).catch(() => undefined);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

function privateCopy(fixture: string, stateDir: string): string {
  const dir = path.join(stateDir, "project");
  // Not the stack settings an older run left in the fixture (Pulumi.e2e.yaml): each stack starts without any.
  cpSync(fixture, dir, {
    recursive: true,
    filter: (source) => !/^Pulumi\..+\.yaml$/.test(path.basename(source)),
  });
  symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}
