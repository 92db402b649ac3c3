#!/usr/bin/env node
// `exampledev-plugin`: installs the native resource plugin `pulumi-resource-exampledev` of this package's own
// version where the Pulumi CLI finds it, from the installed package alone (`npx exampledev-plugin install`).
//
// The plugin is a folder: this package's compiled code and the dependencies the plugin loads, copied from
// where Node resolves them, and an executable `pulumi-resource-exampledev` that starts `node` (the first on
// PATH, as Pulumi's Node language host does) on dist/provider/native/main.js inside it. `pulumi plugin install
// resource exampledev <version> --file <folder>` copies it into the plugin cache ($PULUMI_HOME/plugins), so it
// keeps working after the project's node_modules moves or goes. See docs/native-package.md.
import "../../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { NATIVE_PACKAGE } from "../../sdk/resources/type-tokens";
import { pluginVersion } from "./version";

export const PLUGIN_NAME = `pulumi-resource-${NATIVE_PACKAGE}`;

/**
 * The packages dist/provider/native/main.js requires (test/e2e/package-install.test.ts checks the list
 * against its require graph); their own dependencies come along. The server's, the policy pack's and the
 * controller's dependencies (fastify, pino, @pulumi/policy, ...) stay out of the plugin.
 */
export const PLUGIN_DEPENDENCIES = [
  "@grpc/grpc-js",
  "@pulumi/pulumi",
  "google-protobuf",
  "undici",
  "yaml",
  "zod",
];

const USAGE = `usage: exampledev-plugin <command>
  install     puts the ${NATIVE_PACKAGE} resource plugin v<this package's version> into the Pulumi plugin cache
              ($PULUMI_HOME/plugins, ~/.pulumi/plugins by default), replacing an installed copy, as
              \`pulumi plugin install resource ${NATIVE_PACKAGE} <version> --file <folder>\` does (it runs that,
              with the pulumi on PATH). The plugin runs the node first on PATH (Node >= 22.19).
  uninstall   removes that version of the plugin (\`pulumi plugin rm resource ${NATIVE_PACKAGE} <version>\`)
  --help      prints this`;

/** The package's root: three folders above dist/provider/native. */
const PACKAGE_ROOT = path.resolve(__dirname, "../../..");

/** Where Node finds package `name` from directory `from` (node_modules folders upwards), or undefined. */
function resolvePackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") {
      const candidate = path.join(dir, "node_modules", name);
      if (existsSync(path.join(candidate, "package.json"))) return candidate;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Every package the plugin needs, as directories: PLUGIN_DEPENDENCIES and what they depend on. */
export function pluginPackages(root = PACKAGE_ROOT): string[] {
  const found = new Set<string>();
  const queue = PLUGIN_DEPENDENCIES.map((name) => ({ name, from: root, optional: false }));
  for (let next = queue.shift(); next; next = queue.shift()) {
    const dir = resolvePackage(next.name, next.from);
    if (dir === undefined) {
      if (next.optional) continue;
      throw new Error(`${next.name} is not installed beside ${next.from}: run npm install first`);
    }
    if (found.has(dir)) continue;
    found.add(dir);
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    for (const name of Object.keys(manifest.dependencies ?? {}))
      queue.push({ name, from: dir, optional: false });
    for (const name of Object.keys(manifest.optionalDependencies ?? {}))
      queue.push({ name, from: dir, optional: true });
  }
  return [...found].sort();
}

/** The folder above every package's node_modules: copies keep their places relative to it. */
function layoutRoot(dirs: string[]): string {
  let common = dirs[0] ?? PACKAGE_ROOT;
  for (const dir of dirs) {
    while (common !== path.dirname(common) && path.relative(common, dir).startsWith("..")) {
      common = path.dirname(common);
    }
  }
  // Up out of node_modules (and a scope in it), so that copies resolve one another as the originals did.
  const segments = common.split(path.sep);
  const last = segments.lastIndexOf("node_modules");
  return last > 0 ? segments.slice(0, last).join(path.sep) || path.sep : common;
}

/** Hard-links (else copies) `from` into `to`, following symbolic links; skips `skip` names at the top. */
function linkTree(
  from: string,
  to: string,
  skip: (name: string, depth: number) => boolean,
  depth = 0,
): number {
  mkdirSync(to, { recursive: true });
  let bytes = 0;
  for (const name of readdirSync(from)) {
    if (skip(name, depth)) continue;
    const source = path.join(from, name);
    const target = path.join(to, name);
    const stat = statSync(source);
    if (stat.isDirectory()) {
      bytes += linkTree(source, target, skip, depth + 1);
    } else if (stat.isFile()) {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
      bytes += stat.size;
    }
  }
  return bytes;
}

/** Writes the plugin's folder into `dir`: the package, its plugin dependencies and the executable. */
export function stagePlugin(dir: string, version = pluginVersion()): { bytes: number; packages: number } {
  const packages = pluginPackages();
  const root = layoutRoot([PACKAGE_ROOT, ...packages]);
  const at = (source: string) => path.join(dir, path.relative(root, source));
  // This package: its manifest and dist/ (no source maps), never a node_modules folder or a checkout's rest.
  const self = at(PACKAGE_ROOT);
  mkdirSync(self, { recursive: true });
  copyFileSync(path.join(PACKAGE_ROOT, "package.json"), path.join(self, "package.json"));
  let bytes = linkTree(path.join(PACKAGE_ROOT, "dist"), path.join(self, "dist"), (name) =>
    name.endsWith(".map"),
  );
  for (const pkg of packages) {
    // A package's own node_modules holds nested dependencies: those in the closure are copied on their own.
    bytes += linkTree(pkg, at(pkg), (name, depth) => depth === 0 && name === "node_modules");
  }
  const entry = path.relative(dir, path.join(self, "dist", "provider", "native", "main.js"));
  const executable = path.join(dir, PLUGIN_NAME);
  writeFileSync(
    executable,
    [
      "#!/bin/sh",
      `# The ${NATIVE_PACKAGE} resource plugin v${version} (@exampledev/pulumi), installed by \`exampledev-plugin install\`.`,
      "# It runs the package's native provider with the node first on PATH.",
      `exec node "$(dirname "$0")/${entry.split(path.sep).join("/")}" "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(executable, 0o755);
  return { bytes, packages: packages.length };
}

function pulumi(args: string[]): void {
  try {
    execFileSync("pulumi", args, { stdio: ["ignore", "inherit", "inherit"] });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error(
        "the Pulumi CLI (pulumi) is not on PATH: install it, or put it on PATH, and run this again",
      );
    throw new Error(`pulumi ${args.join(" ")} failed`);
  }
}

function pluginsDir(): string {
  const home = process.env.PULUMI_HOME || path.join(process.env.HOME ?? "~", ".pulumi");
  return path.join(home, "plugins");
}

export function install(version = pluginVersion()): void {
  const started = Date.now();
  const dir = mkdtempSync(path.join(tmpdir(), `${PLUGIN_NAME}-`));
  try {
    const { bytes, packages } = stagePlugin(dir, version);
    pulumi(["plugin", "install", "resource", NATIVE_PACKAGE, version, "--file", dir, "--reinstall"]);
    const size = (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `exampledev-plugin: installed resource plugin ${NATIVE_PACKAGE} v${version} (${size} MB, this package and ${packages} dependencies) into ${pluginsDir()} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function uninstall(version = pluginVersion()): void {
  pulumi(["plugin", "rm", "resource", NATIVE_PACKAGE, version, "--yes"]);
  console.log(
    `exampledev-plugin: removed resource plugin ${NATIVE_PACKAGE} v${version} from ${pluginsDir()}`,
  );
}

function main(args: string[]): number {
  const [command, ...rest] = args;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return 0;
  }
  if ((command !== "install" && command !== "uninstall") || rest.length > 0) {
    console.error(
      `${command === undefined ? "exampledev-plugin: give a command" : `exampledev-plugin: unknown arguments: ${args.join(" ")}`}\n${USAGE}`,
    );
    return 2;
  }
  try {
    if (command === "install") install();
    else uninstall();
    return 0;
  } catch (error) {
    console.error(`exampledev-plugin: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
