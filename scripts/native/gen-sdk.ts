// `npm run gen-sdk`: generates the native package's SDKs from provider/native/schema.json into build/sdks/
// (nodejs, go, python), compiles the Go SDK against github.com/pulumi/pulumi/sdk/v3 from the Go proxy and
// byte-compiles the Python SDK: the SDKs of other languages, not committed. The committed Node SDK
// (sdk/native) is written by `npm run generate`; `--check` fails when it is stale, as `generate --check` does.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { SCHEMA_FILE } from "../../provider/native/schema-file";
import { REPO } from "../lib/docs";
import { GENERATE_COMMAND } from "../lib/generated-header";
import { pinnedPulumiVersion } from "../lib/pulumi";
import { goEnvironment } from "./go-host";
import { committedSdk, differences } from "./node-sdk";
import { generateSdks } from "./sdk-generator";

const OUT = path.join(REPO, "build", "sdks");
const LANGUAGES = ["nodejs", "go", "python"] as const;

const say = (message: string) => console.log(`[gen-sdk] ${message}`);

function timed<T>(what: string, run: () => T): T {
  const started = Date.now();
  const result = run();
  say(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** A go.mod beside the generated packages, so `go build` resolves the Pulumi Go SDK this package pins. */
function buildGoSdk(): void {
  const dir = path.join(OUT, "go");
  const version = pinnedPulumiVersion();
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
  mkdirSync(OUT, { recursive: true });
  timed("SDKs generated", () => generateSdks(path.join(REPO, SCHEMA_FILE), OUT, LANGUAGES));
  buildGoSdk();
  checkPythonSdk();
  // The whole comparison, with the generator's output at hand (`generate --check` compares hashes only).
  const stale = values.check ? differences(committedSdk(path.join(OUT, "nodejs"))) : [];
  for (const file of stale) console.error(`${file} is out of date with ${SCHEMA_FILE}`);
  if (stale.length > 0) {
    console.error(`run \`${GENERATE_COMMAND}\` and commit the result`);
    process.exitCode = 1;
  }
  say(`.NET: no generator here (it lives in pulumi-dotnet, not pkg/v3): not generated`);
}

try {
  main();
} catch (error: unknown) {
  console.error(`[gen-sdk] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
