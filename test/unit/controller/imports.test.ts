// The controller is a client like any other: everything it loads, followed import by import from each of
// its files, is its own folder, the builder, the command-line plumbing (`cli/`), `sdk/` or a package, and nothing of `server/`. The builder is a
// library under it: `sdk/` and packages only.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const ROOT = join(__dirname, "../../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The relative modules a file imports or re-exports (types too), as files. */
function localImports(file: string): string[] {
  const tree = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression.getText();
      if (callee === "require" || node.expression.kind === ts.SyntaxKind.ImportKeyword)
        specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return specifiers
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => {
      const base = join(dirname(file), specifier);
      const candidates = [`${base}.ts`, join(base, "index.ts")];
      const found = candidates.find((candidate) => existsSync(candidate));
      if (!found) throw new Error(`${relative(ROOT, file)} imports ${specifier}, which is no .ts file`);
      return found;
    });
}

/** Every file a folder's files load, followed import by import, relative to the root. */
function loadedBy(folder: string): string[] {
  const seen = new Set<string>();
  const pending = sourceFiles(join(ROOT, folder));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...localImports(file));
  }
  return [...seen].map((file) => relative(ROOT, file));
}

const outside = (files: string[], allowed: string[]) =>
  files.filter((file) => !allowed.some((folder) => file.startsWith(`${folder}/`)));

it("the controller loads nothing of server/: only controller/, builder/, cli/, sdk/ and packages", () => {
  const loaded = loadedBy("controller");
  expect(outside(loaded, ["controller", "builder", "cli", "sdk"])).toEqual([]);
  // The scan did follow imports into sdk/ and builder/.
  expect(loaded.some((file) => file.startsWith("sdk/client/"))).toBe(true);
  expect(loaded.some((file) => file.startsWith("builder/oci/"))).toBe(true);
});

it("the builder is a library: only builder/, sdk/ and packages, never controller/", () => {
  const loaded = loadedBy("builder");
  expect(outside(loaded, ["builder", "sdk"])).toEqual([]);
  expect(loaded.some((file) => file.startsWith("sdk/schema/"))).toBe(true);
});
