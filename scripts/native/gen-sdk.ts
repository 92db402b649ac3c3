// `npm run gen-sdk`: generates the native package's SDKs from provider/native/schema.json into build/sdks/
// (nodejs, go, python), compiles the Go SDK against github.com/pulumi/pulumi/sdk/v3 from the Go proxy,
// byte-compiles the Python SDK, and copies the Node SDK to sdk/native/, where it is committed and compiled
// into this package as `@exampledev/pulumi/native`. `--check` copies nothing and fails when sdk/native/
// differs from what the schema generates (the SDKs under build/ are still generated and checked).
//
// The generators are pkg/v3's own (scripts/native/gen-sdk/main.go says why they are called directly rather
// than through `pulumi package gen-sdk`); the tool is built once per source version and cached like the CLI.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { SCHEMA_FILE } from "../../provider/native/schema-file";
import { REPO } from "../lib/docs";
import { goEnvironment } from "./go-host";

const TOOL_DIR = path.join(REPO, "scripts", "native", "gen-sdk");
const OUT = path.join(REPO, "build", "sdks");
const NODE_SDK = path.join(REPO, "sdk", "native");
const LANGUAGES = ["nodejs", "go", "python"] as const;

const say = (message: string) => console.log(`[gen-sdk] ${message}`);

function timed<T>(what: string, run: () => T): T {
  const started = Date.now();
  const result = run();
  say(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** The generator binary, built when its sources changed (keyed by their hash), else taken from the cache. */
function generator(): string {
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "main.go"]) hash.update(readFileSync(path.join(TOOL_DIR, file)));
  const cacheRoot =
    process.env.EXAMPLEDEV_TOOLCHAIN_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "exampledev-pulumi");
  const binary = path.join(cacheRoot, `gen-sdk-${hash.digest("hex").slice(0, 12)}`, "gen-sdk");
  if (existsSync(binary)) return binary;
  say(`building the SDK generator (pkg/v3 code generators) into ${path.dirname(binary)}`);
  say("  (first build: about 3 minutes on 2 cores; later runs reuse it)");
  timed("generator built", () =>
    execFileSync("go", ["build", "-trimpath", "-o", binary, "."], {
      cwd: TOOL_DIR,
      env: goEnvironment(),
      stdio: "inherit",
    }),
  );
  return binary;
}

/** Every file under `dir`, relative to it, with its content. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, full), readFileSync(full, "utf8"));
  }
  return files;
}

function sameTree(a: string, b: string): boolean {
  const [left, right] = [tree(a), tree(b)];
  return left.size === right.size && [...left].every(([file, text]) => right.get(file) === text);
}

/** A go.mod beside the generated packages, so `go build` resolves the Pulumi Go SDK this package pins. */
function buildGoSdk(): void {
  const dir = path.join(OUT, "go");
  const { dependencies } = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8"));
  const version = dependencies["@pulumi/pulumi"];
  writeFileSync(
    path.join(dir, "go.mod"),
    `module github.com/exampledev/pulumi-exampledev/sdk/go\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 v${version}\n`,
  );
  const env = { ...goEnvironment(), GOFLAGS: "-mod=mod" };
  timed("go mod tidy", () => execFileSync("go", ["mod", "tidy"], { cwd: dir, env, stdio: "inherit" }));
  timed("go build ./... (Go SDK)", () =>
    execFileSync("go", ["build", "./..."], { cwd: dir, env, stdio: "inherit" }),
  );
}

/** Byte-compiles the Python SDK (syntax only: the pulumi package itself cannot be installed here). */
function checkPythonSdk(): void {
  try {
    execFileSync("python3", ["--version"], { stdio: "ignore" });
  } catch {
    say("python3 is not installed: the Python SDK is generated, not checked");
    return;
  }
  timed("python3 -m compileall (Python SDK)", () =>
    execFileSync("python3", ["-m", "compileall", "-q", path.join(OUT, "python")], { stdio: "inherit" }),
  );
}

function main(): void {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  const binary = generator();
  mkdirSync(OUT, { recursive: true });
  timed("SDKs generated", () =>
    execFileSync(
      binary,
      ["-schema", path.join(REPO, SCHEMA_FILE), "-out", OUT, "-language", LANGUAGES.join(",")],
      { stdio: "inherit" },
    ),
  );
  const nodeSdk = path.join(OUT, "nodejs");
  buildGoSdk();
  checkPythonSdk();
  if (sameTree(nodeSdk, NODE_SDK)) {
    say("sdk/native is up to date");
  } else if (values.check) {
    console.error(
      "sdk/native is out of date with provider/native/schema.json: run `npm run gen-sdk` and commit it",
    );
    process.exitCode = 1;
  } else {
    rmSync(NODE_SDK, { recursive: true, force: true });
    cpSync(nodeSdk, NODE_SDK, { recursive: true });
    say("copied the Node SDK to sdk/native (run `npm run build` to compile it)");
  }
  say(`.NET: no generator here (it lives in pulumi-dotnet, not pkg/v3): not generated`);
}

try {
  main();
} catch (error: unknown) {
  console.error(`[gen-sdk] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
