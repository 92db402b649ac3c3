// pkg/v3's SDK generators (scripts/native/gen-sdk/main.go says why they are called directly rather than
// through `pulumi package gen-sdk`), built once per source version and cached outside the repository like
// the CLI, and the marks this repository's generated files carry, applied to what they write.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../lib/docs";
import { goEnvironment } from "./go-host";

const TOOL_DIR = path.join(REPO, "scripts", "native", "gen-sdk");

/** The committed Node SDK, compiled into this package as `@exampledev/pulumi/native`. */
export const NODE_SDK = "sdk/native";

/** The hash of the generator's sources: its cache key, and part of what the Node SDK is generated from. */
export function generatorSourceHash(): string {
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "main.go"]) hash.update(readFileSync(path.join(TOOL_DIR, file)));
  return hash.digest("hex");
}

/** The generator binary, built when its sources changed (keyed by their hash), else taken from the cache. */
function generator(): string {
  const cacheRoot =
    process.env.EXAMPLEDEV_TOOLCHAIN_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "exampledev-pulumi");
  const binary = path.join(cacheRoot, `gen-sdk-${generatorSourceHash().slice(0, 12)}`, "gen-sdk");
  if (existsSync(binary)) return binary;
  console.log(
    `[sdk-generator] building the SDK generator (pkg/v3 code generators) into ${path.dirname(binary)}`,
  );
  console.log("[sdk-generator]   (first build: about 3 minutes on 2 cores; later runs reuse it)");
  execFileSync("go", ["build", "-trimpath", "-o", binary, "."], {
    cwd: TOOL_DIR,
    env: goEnvironment(),
    stdio: "inherit",
  });
  return binary;
}

/** Generates the SDKs of `languages` from the schema file into `out/<language>`. */
export function generateSdks(schemaFile: string, out: string, languages: readonly string[]): void {
  execFileSync(generator(), ["-schema", schemaFile, "-out", out, "-language", languages.join(",")], {
    stdio: "inherit",
  });
}

/** Every file under `dir`, relative to it, with its content. */
export function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, full), readFileSync(full, "utf8"));
  }
  return files;
}

/**
 * The generator's files with `header` as their first line, in the comment each format has: `//` in
 * TypeScript and tsconfig.json (JSONC), `#` in .gitattributes and .gitignore, a `"//"` key (which npm
 * ignores) in package.json; its README (the package description) becomes `readme`.
 */
export function markGenerated(
  files: Map<string, string>,
  header: string,
  readme: string,
): Map<string, string> {
  const marked = new Map<string, string>();
  for (const [file, text] of files) {
    const name = path.basename(file);
    if (name === "README.md") marked.set(file, readme);
    else if (name === "package.json")
      marked.set(file, text.replace(/^\{\n/, `{\n    "//": ${JSON.stringify(header)},\n`));
    else if (name.startsWith(".git")) marked.set(file, `# ${header}\n${text}`);
    else marked.set(file, `// ${header}\n${text}`);
  }
  return marked;
}
