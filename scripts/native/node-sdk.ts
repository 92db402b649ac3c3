// The committed Node SDK (sdk/native): pkg/v3's Node generator's output for the package schema, each file
// marked as generated, and a manifest of hashes (generated.sha256) that lets `--check` find a stale or
// edited file without the generator, a Go program that takes minutes to build and may not be built here.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SCHEMA_FILE, schemaText } from "../../provider/native/schema-file";
import { REPO } from "../lib/docs";
import { type Generated, generatedHeader } from "../lib/generated-header";
import { generateSdks, generatorSourceHash, markGenerated, NODE_SDK, tree } from "./sdk-generator";

const SOURCE = `${SCHEMA_FILE} (pkg/v3's Node SDK generator, scripts/native/gen-sdk)`;
const MANIFEST = "generated.sha256";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** What the SDK is generated from: the schema `generate` writes, and the generator's sources. */
function inputs(): Map<string, string> {
  return new Map([
    [SCHEMA_FILE, sha256(schemaText())],
    ["scripts/native/gen-sdk", generatorSourceHash()],
  ]);
}

/** `sha256sum`'s format: the inputs (from the repository root), then each file of the SDK. */
function manifest(files: Map<string, string>): string {
  const lines = [
    `# ${generatedHeader(SOURCE)}`,
    "# The hashes of what the SDK was generated from, then of each of its files: `--check` compares them.",
    ...[...inputs()].map(([name, hash]) => `${hash}  ${name}`),
    ...[...files].sort(([a], [b]) => a.localeCompare(b)).map(([file, text]) => `${sha256(text)}  ${file}`),
  ];
  return `${lines.join("\n")}\n`;
}

function readManifest(text: string | undefined): Map<string, string> {
  const entries = (text ?? "").split("\n").flatMap((line) => {
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    return match ? [[match[2] as string, match[1] as string] as const] : [];
  });
  return new Map(entries);
}

/** The SDK as committed, from the generator's Node output in `generatedDir`. */
export function committedSdk(generatedDir: string): Map<string, string> {
  const files = markGenerated(tree(generatedDir), generatedHeader(SOURCE), readme());
  return new Map([...files, [MANIFEST, manifest(files)]]);
}

/** The files of `expected` and of the committed SDK that differ, from the repository root. */
export function differences(expected: Map<string, string>): string[] {
  const committed = tree(path.join(REPO, NODE_SDK));
  const names = new Set([...expected.keys(), ...committed.keys()]);
  return [...names]
    .filter((name) => expected.get(name) !== committed.get(name))
    .sort()
    .map((name) => path.join(NODE_SDK, name));
}

/** Stale files by the manifest: all of them when what the SDK is generated from changed. */
function stale(): string[] {
  const committed = tree(path.join(REPO, NODE_SDK));
  const recorded = readManifest(committed.get(MANIFEST));
  if ([...inputs()].some(([name, hash]) => recorded.get(name) !== hash)) return [`${NODE_SDK}/`];
  committed.delete(MANIFEST);
  const sdkFiles = [...recorded.keys()].filter((name) => !inputs().has(name));
  const names = new Set([...sdkFiles, ...committed.keys()]);
  return [...names]
    .filter((name) => {
      const text = committed.get(name);
      return text === undefined || recorded.get(name) !== sha256(text);
    })
    .sort()
    .map((name) => path.join(NODE_SDK, name));
}

/** Runs the generator (building it first when needed) and replaces the folder with what it makes. */
function write(): void {
  const work = mkdtempSync(path.join(os.tmpdir(), "exampledev-node-sdk-"));
  try {
    const schemaFile = path.join(work, "schema.json");
    writeFileSync(schemaFile, schemaText());
    generateSdks(schemaFile, work, ["nodejs"]);
    const dir = path.join(REPO, NODE_SDK);
    rmSync(dir, { recursive: true, force: true });
    for (const [file, text] of committedSdk(path.join(work, "nodejs"))) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export const nodeSdk: Generated = { path: NODE_SDK, source: SOURCE, stale, write };

function readme(): string {
  return [
    "# sdk/native (public: `@exampledev/pulumi/native`)",
    "",
    generatedHeader(SOURCE),
    "",
    "The Node SDK of the native package: the `Proxy`, `Service` and `ServiceRevision` resources and the",
    "provider's configuration, for programs that use the native plugin (`pulumi-resource-exampledev`). Every",
    `file here is generated; \`${MANIFEST}\` holds the hashes that \`npm run generate -- --check\` compares.`,
    "",
  ].join("\n");
}
