// The pinned Pulumi toolchain, for code that drives the CLI through the Automation API (the demo, the tests).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PulumiCommand } from "@pulumi/pulumi/automation";

const repo = path.resolve(__dirname, "../..").replace(/\/dist$/, "");

/**
 * The exact `@pulumi/pulumi` version the project builds and tests with, and so the version of the CLI it builds
 * (scripts/toolchain/build.sh reads the same entry): package.json declares a range for users, the lockfile pins it.
 */
export function pinnedPulumiVersion(): string {
  const lock = JSON.parse(readFileSync(path.join(repo, "package-lock.json"), "utf8"));
  return lock.packages["node_modules/@pulumi/pulumi"].version;
}

/**
 * The oldest @pulumi/pulumi (SDK and CLI) the package supports: the floor of package.json's range, which
 * `npm test` runs a smoke stack on beside the pinned version (scripts/toolchain/build.sh --version).
 */
export function oldestSupportedPulumiVersion(): string {
  const range = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")).dependencies[
    "@pulumi/pulumi"
  ];
  const floor = /^\^(\d+\.\d+\.\d+)$/.exec(range)?.[1];
  if (floor === undefined) throw new Error(`package.json's @pulumi/pulumi range "${range}" is not ^X.Y.Z`);
  return floor;
}

const binDirs = new Map<string, string>();

/**
 * The toolchain's bin directory (the pinned version's, or `version`'s), built on first use by the same script
 * `npm run pulumi` uses; asked once per process and version (the script costs about 0.6 s of CPU, and a test
 * file creates dozens of stacks).
 */
export function toolchainBinDir(version?: string): string {
  const key = version ?? "";
  let dir = binDirs.get(key);
  if (dir === undefined) {
    const args = ["--print-bin-dir", ...(version === undefined ? [] : ["--version", version])];
    dir = execFileSync("bash", [path.join(repo, "scripts/toolchain/build.sh"), ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
    binDirs.set(key, dir);
  }
  return dir;
}

const commands = new Map<string, Promise<PulumiCommand>>();

/** The CLI for the Automation API, once per process and version: `PulumiCommand.get` runs `pulumi version`. */
function pinnedCommand(version?: string): Promise<PulumiCommand> {
  const key = version ?? "";
  let command = commands.get(key);
  if (command === undefined) {
    command = PulumiCommand.get({ root: path.dirname(toolchainBinDir(version)) });
    commands.set(key, command);
  }
  return command;
}

/**
 * The pinned CLI (or that of `version`), and the environment it runs with: offline, a file:// backend in `stateDir`, and its
 * temporary files (the Node language host leaves pipe folders behind) in `stateDir` too. Node's compile cache
 * stays where Node keeps it by default, the caller's temporary directory: under the private TMPDIR every
 * program and provider process of every stack would compile @pulumi/pulumi and this package afresh (a third
 * of a program's CPU).
 */
export async function pinnedPulumi(stateDir: string, passphrase: string, version?: string) {
  const tmp = path.join(stateDir, "tmp");
  mkdirSync(tmp, { recursive: true });
  const env: Record<string, string> = {
    PATH: [toolchainBinDir(version), path.join(repo, "node_modules/.bin"), process.env.PATH].join(
      path.delimiter,
    ),
    PULUMI_HOME: path.join(stateDir, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(stateDir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    TMPDIR: tmp,
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), "node-compile-cache"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  return { env, command: await pinnedCommand(version) };
}
