// `npm run plugin:install`: packages the native plugin `pulumi-resource-exampledev` and installs it into the
// Pulumi plugin cache (PULUMI_HOME, ~/.pulumi by default) with `pulumi plugin install resource exampledev
// <version> --file <tarball>`, so every Pulumi program on this machine finds it, in any language. The plugin
// is a small executable that starts this checkout's pinned Node on the compiled entry point
// (dist/provider/native/main.js): it runs this package's code and dependencies where they are, so rebuild
// (`npm run build`) to change what it runs, and run this again after moving the checkout.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pluginVersion } from "../../provider/native/version";
import { NATIVE_PACKAGE } from "../../sdk/resources/type-tokens";
import { REPO } from "../lib/docs";

export const PLUGIN_NAME = `pulumi-resource-${NATIVE_PACKAGE}`;
const ENTRY = path.join(REPO, "dist", "provider", "native", "main.js");

const say = (message: string) => console.log(`[plugin:install] ${message}`);

/** Single quotes for sh, so paths with spaces or quotes survive. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Writes the executable and its tarball under build/plugin/, and returns the tarball's path. */
export function packagePlugin(version = pluginVersion()): string {
  const dir = path.join(REPO, "build", "plugin");
  const binDir = path.join(dir, "bin");
  mkdirSync(binDir, { recursive: true });
  const executable = path.join(binDir, PLUGIN_NAME);
  writeFileSync(
    executable,
    [
      "#!/bin/sh",
      `# The ${NATIVE_PACKAGE} resource plugin v${version}, installed by \`npm run plugin:install\` from ${REPO}.`,
      "# It runs that checkout's compiled provider with its pinned Node.",
      `exec ${shellQuote(process.execPath)} ${shellQuote(ENTRY)} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(executable, 0o755);
  const tarball = path.join(dir, `${PLUGIN_NAME}-v${version}-${process.platform}-${process.arch}.tar.gz`);
  execFileSync("tar", ["-czf", tarball, "-C", binDir, PLUGIN_NAME]);
  return tarball;
}

/**
 * Installs the plugin with the pinned CLI (`scripts/pulumi.sh`) into PULUMI_HOME (from `overrides`, else
 * this process's environment); `--reinstall` makes a second run replace the first, so it is idempotent.
 */
export function installPlugin(overrides: NodeJS.ProcessEnv = {}, version = pluginVersion()): void {
  const env = { ...process.env, ...overrides };
  const tarball = packagePlugin(version);
  say(`packaged ${path.relative(REPO, tarball)}`);
  const args = ["plugin", "install", "resource", NATIVE_PACKAGE, version, "--file", tarball, "--reinstall"];
  execFileSync("bash", [path.join(REPO, "scripts", "pulumi.sh"), ...args], {
    env: { ...env, INIT_CWD: REPO },
    stdio: "inherit",
  });
  const home = env.PULUMI_HOME ?? path.join(env.HOME ?? "~", ".pulumi");
  say(`installed resource plugin ${NATIVE_PACKAGE} v${version} into ${path.join(home, "plugins")}`);
}

if (require.main === module) {
  try {
    const started = Date.now();
    installPlugin();
    say(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error: unknown) {
    console.error(`[plugin:install] ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
