// Every file the repository generates, with what it is generated from: `npm run generate` writes them all,
// `npm run generate -- --check` writes nothing and fails listing the stale ones. Adding a generated file is
// one line in GENERATED_FILES.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CRD_SOURCE, crdFile, crdYaml } from "../../deploy/crds";
import { DEPLOY_FILES, DEPLOY_SOURCE, deployYaml } from "../../deploy/manifests";
import { SCHEMA_FILE, schemaText } from "../../provider/native/schema-file";
import { KIND_NAMES, secretTree } from "../../sdk/schema";
import { nodeSdk } from "../native/node-sdk";
import { DOCS, REPO, regenerate } from "./docs";
import { GENERATE_COMMAND, type Generated, generatedHeader } from "./generated-header";
import { REFERENCE_FILE, REFERENCE_SOURCE, referencePage } from "./reference";

export { GENERATE_COMMAND, type Generated, generatedHeader };

/**
 * A file written by this process: `render` gets the committed text (undefined when there is none; files
 * generated in part keep the rest of it) and returns the text to commit.
 */
export interface GeneratedFile {
  path: string;
  source: string;
  render(current: string | undefined): string;
}

/** A file generated whole. */
function file(path: string, source: string, render: () => string): GeneratedFile {
  return { path, source, render };
}

/** A JSON file generated whole: its first key, `"//"`, says so (its reader ignores keys it does not know). */
function json(path: string, source: string, data: () => object): GeneratedFile {
  return file(
    path,
    source,
    () => `${JSON.stringify({ "//": generatedHeader(source), ...data() }, null, 2)}\n`,
  );
}

/** A Markdown file with generated parts between marker comments (scripts/lib/docs.ts). */
function markdownParts(path: string): GeneratedFile {
  const sections = DOCS[path] ?? [];
  const source = sections.map((section) => section.source).join("; ");
  return { path, source, render: (current) => regenerate(path, current ?? "", sections) };
}

/** The files this process renders. */
export const GENERATED_FILES: readonly GeneratedFile[] = [
  json(
    "sdk/resources/secret-trees.json",
    "the schema's secret fields (secretTree in sdk/schema)",
    secretTrees,
  ),
  // Pulumi refuses a package schema with keys it does not define: provider/native/README.md and
  // .gitattributes mark this one.
  file(SCHEMA_FILE, "the zod schema (packageSchema in provider/native/package-schema.ts)", schemaText),
  ...KIND_NAMES.map((kind) => file(crdFile(kind), CRD_SOURCE, () => crdYaml(kind))),
  ...DEPLOY_FILES.map((entry) => file(entry.path, DEPLOY_SOURCE, () => deployYaml(entry))),
  ...Object.keys(DOCS).map(markdownParts),
  // Its first line, an HTML comment, says it is generated.
  file(REFERENCE_FILE, REFERENCE_SOURCE, referencePage),
];

/** Everything `npm run generate` writes, in order: the Node SDK comes from the package schema. */
export const GENERATED: readonly Generated[] = [...GENERATED_FILES.map(inProcess), nodeSdk];

function secretTrees(): object {
  const trees = KIND_NAMES.flatMap((kind) => {
    const tree = secretTree(kind);
    return tree === undefined ? [] : [[kind, tree] as const];
  });
  return Object.fromEntries(trees);
}

function read(file: string): string | undefined {
  const full = path.join(REPO, file);
  return existsSync(full) ? readFileSync(full, "utf8") : undefined;
}

function inProcess(generated: GeneratedFile): Generated {
  const text = () => generated.render(read(generated.path));
  return {
    path: generated.path,
    source: generated.source,
    stale: () => (read(generated.path) === text() ? [] : [generated.path]),
    write: () => {
      mkdirSync(path.dirname(path.join(REPO, generated.path)), { recursive: true });
      writeFileSync(path.join(REPO, generated.path), text());
    },
  };
}

/** Each file this process renders, with its committed text and the text `npm run generate` writes. */
export function generatedDocs(): { file: string; current: string | undefined; generated: string }[] {
  return GENERATED_FILES.map((entry) => {
    const current = read(entry.path);
    return { file: entry.path, current, generated: entry.render(current) };
  });
}

/** Lists the stale files of `entries` with the command that fixes them; whether there were any. */
export function reportStale(entries: readonly Generated[] = GENERATED): boolean {
  const stale = entries.flatMap((entry) => entry.stale().map((file) => ({ file, source: entry.source })));
  for (const { file, source } of stale) console.error(`${file} is out of date with ${source}`);
  if (stale.length > 0) {
    console.error(
      `${stale.length} generated file(s) out of date: run \`${GENERATE_COMMAND}\` and commit the result`,
    );
  }
  return stale.length > 0;
}
