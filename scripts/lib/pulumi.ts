// The pinned Pulumi toolchain, for code that drives the CLI through the Automation API (the demo, the tests).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
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

/** The pinned toolchain's bin directory, built on first use by the same script `npm run pulumi` uses. */
export function toolchainBinDir(): string {
  return execFileSync("bash", [path.join(repo, "scripts/toolchain/build.sh"), "--print-bin-dir"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/**
 * The pinned CLI, and the environment it runs with: offline, a file:// backend in `stateDir`, and its
 * temporary files (the Node language host leaves pipe folders behind) in `stateDir` too.
 */
export async function pinnedPulumi(stateDir: string, passphrase: string) {
  const binDir = toolchainBinDir();
  const tmp = path.join(stateDir, "tmp");
  mkdirSync(tmp, { recursive: true });
  const env: Record<string, string> = {
    PATH: [binDir, path.join(repo, "node_modules/.bin"), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(stateDir, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(stateDir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    TMPDIR: tmp,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  return { env, command: await PulumiCommand.get({ root: path.dirname(binDir) }) };
}
