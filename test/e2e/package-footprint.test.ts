// What a Pulumi program installs, and what the local server's package holds. `@exampledev/pulumi` is what
// every program installs, so the server's dependencies (fastify, pino, tar-stream, fast-json-patch) live in
// `@exampledev/pulumi-server` instead (scripts/server-package.ts), which a team adds for its tests or runs
// beside a cluster. Both are packed as `npm publish` would upload them.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npm, packPackage, SERVER_PACKAGE } from "../helpers/user-program";

const SERVER_ONLY = ["fastify", "pino", "tar-stream", "fast-json-patch"];

/** Every file under `dir`, relative to it with `/`. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

describe("the packages' footprint", () => {
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), "exampledev-footprint-"));
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it("a program's install holds none of the server's dependencies", () => {
    const project = path.join(work, "program");
    execFileSync("mkdir", ["-p", project]);
    const tarball = packPackage(project);
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({
        name: "footprint",
        private: true,
        dependencies: {
          "@exampledev/pulumi": `file:./${path.basename(tarball)}`,
          "@pulumi/pulumi": "^3.0.0",
        },
      }),
    );
    npm(project, ["install", "--no-audit", "--no-fund"]);
    const installed = new Set(
      npm(project, ["ls", "--all", "--parseable"])
        .split("\n")
        .filter((line) => line.includes("node_modules"))
        .map((line) => line.slice(line.lastIndexOf("node_modules/") + "node_modules/".length)),
    );
    const size = execFileSync("du", ["-sh", path.join(project, "node_modules")], { encoding: "utf8" }).split(
      "\t",
    )[0];
    console.log(`[footprint] a program on @exampledev/pulumi: ${size}, ${installed.size} packages`);
    expect(SERVER_ONLY.filter((name) => installed.has(name))).toEqual([]);
  });

  it("the server's package: every relative import inside it, every package it loads declared", () => {
    const tarball = packPackage(work, SERVER_PACKAGE);
    execFileSync("tar", ["-xzf", tarball, "-C", work]);
    const dir = path.join(work, "package");
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    const files = new Set(filesUnder(dir));
    console.log(`[footprint] ${path.basename(tarball)}: ${files.size} files`);
    const unresolved: string[] = [];
    const named = new Set<string>();
    for (const file of files) {
      if (!file.endsWith(".js") && !file.endsWith(".d.ts")) continue;
      const text = readFileSync(path.join(dir, file), "utf8");
      for (const [, specifier = ""] of text.matchAll(/(?:require\(|from |import\()"([^"]+)"/g)) {
        if (specifier.startsWith("node:")) continue;
        if (!specifier.startsWith(".")) {
          named.add(
            specifier
              .split("/")
              .slice(0, specifier.startsWith("@") ? 2 : 1)
              .join("/"),
          );
          continue;
        }
        const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
        const endings = file.endsWith(".d.ts") ? [".d.ts", "/index.d.ts"] : ["", ".js", "/index.js", ".json"];
        if (!endings.some((ending) => files.has(`${base}${ending}`)))
          unresolved.push(`${file}: ${specifier}`);
      }
    }
    expect(unresolved).toEqual([]);
    const builtins = new Set(require("node:module").builtinModules as string[]);
    const undeclared = [...named].filter((name) => !builtins.has(name) && !(name in manifest.dependencies));
    expect(undeclared).toEqual([]);
    for (const bin of Object.values(manifest.bin as Record<string, string>))
      expect(files.has(path.posix.normalize(bin))).toBe(true);
    expect(Object.keys(manifest.dependencies)).toEqual(expect.arrayContaining(SERVER_ONLY));
  });
});
