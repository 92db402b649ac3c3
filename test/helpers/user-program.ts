// A user's program as npm lays it out: this package packed with `npm pack` (what `npm publish` would upload)
// and installed from the tarball, beside the program's own dependencies from the registry, in a temporary
// directory outside the repository (nothing resolves through the repository's node_modules).
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const REPO = path.resolve(__dirname, "../..");

/**
 * The environment for npm in a user's program: the pinned Node first on PATH, and none of the `npm_*`
 * variables of the `npm run` that started vitest (they would point npm at the repository's workspaces).
 */
function npmEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.toLowerCase().startsWith("npm_")) env[key] = value;
  }
  env.PATH = [path.join(REPO, "node_modules/.bin"), process.env.PATH].join(path.delimiter);
  return env;
}

/** Runs npm with `args` in `cwd`, returning its standard output. */
export function npm(cwd: string, args: string[]): string {
  return execFileSync("npm", args, {
    cwd,
    env: npmEnvironment(),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The newest published version of `name` within `range` (for example the newest `@pulumi/pulumi` 3.x). */
export function newestVersion(name: string, range: string): string {
  const versions: string | string[] = JSON.parse(
    npm(REPO, ["view", `${name}@${range}`, "version", "--json"]),
  );
  // In the registry's order, which is not semver order: compare the numbers (a range holds no prereleases).
  const numbers = (version: string) => version.split(/[.+-]/).slice(0, 3).map(Number);
  const compare = (a: string, b: string) => {
    const [x, y] = [numbers(a), numbers(b)];
    return x.map((n, i) => n - (y[i] ?? 0)).find((d) => d !== 0) ?? 0;
  };
  const newest = (Array.isArray(versions) ? versions : [versions]).sort(compare).at(-1);
  if (!newest) throw new Error(`no version of ${name} matches ${range}`);
  return newest;
}

/** The local server's package, as `npm run build` lays it out (scripts/server-package.ts). */
export const SERVER_PACKAGE = path.join(REPO, "dist/packages/server");

/**
 * Packs the built package (`dist/` must be current: `npm run build`), or the one in `packageDir`, into
 * `destination`; the tarball's path.
 */
export function packPackage(destination: string, packageDir = REPO): string {
  const [packed] = JSON.parse(npm(REPO, ["pack", packageDir, "--json", "--pack-destination", destination]));
  return path.join(destination, packed.filename);
}

export interface UserProgram {
  /** The program's directory: its Pulumi.yaml, package.json and node_modules. */
  dir: string;
  /** Every directory `name` is installed in under the program, from `npm ls --all --parseable`. */
  installedCopies(name: string): string[];
  dispose(): void;
}

/**
 * Copies the Pulumi program in `fixture` to a temporary directory, packs this package and runs `npm install`
 * there with a package.json of `@exampledev/pulumi` (the tarball) plus `dependencies` and `devDependencies`,
 * as a user's program declares them; `withServer` adds the local server's package (packed too) as a
 * development dependency, as a team's integration tests would.
 */
export function installUserProgram(
  fixture: string,
  deps: { dependencies: Record<string, string>; devDependencies?: Record<string, string> },
  { withServer = false } = {},
): UserProgram {
  const dir = mkdtempSync(path.join(tmpdir(), "exampledev-user-program-"));
  cpSync(fixture, dir, { recursive: true });
  const tarball = packPackage(dir);
  const server = withServer
    ? { "@exampledev/pulumi-server": `file:./${path.basename(packPackage(dir, SERVER_PACKAGE))}` }
    : {};
  writeFileSync(
    path.join(dir, "package.json"),
    `${JSON.stringify(
      {
        name: "user-program",
        private: true,
        main: "index.ts",
        dependencies: { "@exampledev/pulumi": `file:./${path.basename(tarball)}`, ...deps.dependencies },
        devDependencies: { ...server, ...deps.devDependencies },
      },
      null,
      2,
    )}\n`,
  );
  npm(dir, ["install", "--no-audit", "--no-fund"]);
  return {
    dir,
    installedCopies(name) {
      return npm(dir, ["ls", name, "--all", "--parseable"])
        .split("\n")
        .filter((line) => line.trim() !== "" && line !== dir);
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
