// The fence: docs/design.md's layout table says, for each top folder, what it is and which other folders
// (or which of their files) it may import. This test reads that table and holds the tree to it exactly:
// every import across folders is in the table, every arrow in the table is used, every folder is in it,
// and a library reaches into a deployable only through a file the table names.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../../..");
const KINDS = ["library", "deployable", "harness", "tooling", "tests", "examples"] as const;
type Kind = (typeof KINDS)[number];

interface Row {
  folder: string;
  kind: Kind;
  /** Folders (`sdk`) or files (`provider/lookups.ts`) it may import; `*` for anything. */
  may: string[];
}

/** The rows of the table under "## Layout" in docs/design.md. */
function layoutTable(): Row[] {
  const text = readFileSync(join(ROOT, "docs/design.md"), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith("Layout"));
  if (!section) throw new Error('docs/design.md has no "## Layout" section');
  return section
    .split("\n")
    .filter((line) => /^\| `[\w-]+\/`/.test(line))
    .map((line) => {
      const [folderCell = "", kindCell = "", , mayCell = ""] = line.split("|").slice(1);
      const kind = kindCell.trim() as Kind;
      if (!KINDS.includes(kind)) throw new Error(`docs/design.md layout: "${kind}" is not one of ${KINDS}`);
      const may = [...mayCell.replace(/\([^)]*\)/g, "").matchAll(/`([^`]+)`/g)].map((match) =>
        (match[1] ?? "").replace(/\/$/, ""),
      );
      return { folder: folderCell.trim().replace(/^`|\/`$/g, ""), kind, may };
    });
}

/** Tracked TypeScript sources outside generated code, by top folder. */
function sourcesByFolder(): Map<string, string[]> {
  const files = execFileSync("git", ["ls-files", "*.ts", "*.mts"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => file.includes("/") && !file.startsWith("sdk/native/"));
  const byFolder = new Map<string, string[]>();
  for (const file of files) {
    const folder = file.slice(0, file.indexOf("/"));
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  return byFolder;
}

/** The relative modules a file imports, re-exports, requires or imports dynamically (types too). */
function relativeImports(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(ROOT, file), "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      found.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      found.push((node.argument.literal as ts.StringLiteral).text);
    } else if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if (
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && callee.text === "require")
      )
        found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => normalize(join(dirname(file), specifier)));
}

const topFolder = (path: string) => path.split("/")[0] ?? path;
const allows = (entry: string, target: string) =>
  entry === "*" || target === entry || target.startsWith(`${entry}/`) || `${target}.ts` === entry;

const rows = layoutTable();
const sources = sourcesByFolder();
const rowOf = new Map(rows.map((row) => [row.folder, row]));

/** Every import that crosses a top folder: from file, to module path. */
const crossings = [...sources.values()].flat().flatMap((file) =>
  relativeImports(file)
    .filter((target) => topFolder(target) !== topFolder(file))
    .map((target) => ({ file, target })),
);

describe("the layout table in docs/design.md", () => {
  it("names every top folder with sources, and only folders that exist", () => {
    expect([...sources.keys()].filter((folder) => !rowOf.has(folder))).toEqual([]);
    expect(rows.map((row) => row.folder).filter((folder) => !sources.has(folder))).toEqual([]);
  });

  it("allows every import that crosses folders", () => {
    const refused = crossings.filter(({ file, target }) => {
      const may = rowOf.get(topFolder(file))?.may ?? [];
      return !may.some((entry) => allows(entry, target));
    });
    expect(refused.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it("lists no arrow the tree does not use", () => {
    const unused = rows.flatMap((row) =>
      row.may
        .filter((entry) => entry !== "*")
        .filter(
          (entry) =>
            !crossings.some(({ file, target }) => topFolder(file) === row.folder && allows(entry, target)),
        )
        .map((entry) => `${row.folder} -> ${entry}`),
    );
    expect(unused).toEqual([]);
  });

  it("lets a library into a deployable only through a file it names, and into no harness or tooling", () => {
    const reaching = rows
      .filter((row) => row.kind === "library")
      .flatMap((row) =>
        row.may
          .filter((entry) => {
            const target = rowOf.get(topFolder(entry));
            if (!target || target.kind === "library") return false;
            return target.kind !== "deployable" || !entry.endsWith(".ts");
          })
          .map((entry) => `${row.folder} -> ${entry}`),
      );
    expect(reaching).toEqual([]);
  });
});
