// The two Pulumi programs the benchmark compares: the same N objects (names, labels, specs) declared once
// with this package's resource classes and once on a no-op dynamic provider, which costs what the engine,
// the language host and the dynamic-provider host cost and nothing else. Both are plain JavaScript, so no
// TypeScript compilation is timed.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

export type Variant = "provider" | "noop";

/** The objects, shared by both programs: one Proxy and one ServiceRevision in eight, the rest Services. */
const OBJECTS = `
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const n = config.requireNumber("n");
const generation = config.get("generation") || "1";
const repo = "registry.bench.invalid/team/app";
const digest = "sha256:" + "ab".repeat(32);
const runtime = { compatibilityDate: "2026-01-01" };
function objects() {
  const result = [];
  for (let i = 0; i < n; i++) {
    const metadata = { name: "bench-" + i, labels: { generation } };
    if (i % 8 === 0) {
      result.push({ kind: "Proxy", name: "proxy-" + i, metadata, spec: { shutdown: { drainTimeout: "10s" } } });
    } else if (i % 8 === 1) {
      result.push({ kind: "ServiceRevision", name: "revision-" + i, metadata, spec: { runtime, bundle: { repo, digest } } });
    } else {
      const template = { spec: { runtime, env: [{ name: "GENERATION", value: generation }] } };
      result.push({ kind: "Service", name: "service-" + i, metadata, spec: { source: { oci: { repo, digest } }, template } });
    }
  }
  return result;
}
`;

const PROGRAMS: Record<Variant, string> = {
  provider: `${OBJECTS}
const exampledev = require("@exampledev/pulumi");
for (const { kind, name, metadata, spec } of objects()) new exampledev[kind](name, { metadata, spec });
`,
  noop: `${OBJECTS}
// One provider object for every resource: serialized once, as the engine's cache allows.
const noop = {
  async check(olds, news) { return { inputs: news }; },
  async diff(id, olds, news) {
    const same = JSON.stringify([olds.metadata, olds.spec]) === JSON.stringify([news.metadata, news.spec]);
    return { changes: !same };
  },
  async create(inputs) { return { id: inputs.metadata.name, outs: inputs }; },
  async read(id, props) { return { id, props }; },
  async update(id, olds, news) { return { outs: news }; },
  async delete() {},
};
class Noop extends pulumi.dynamic.Resource {
  constructor(kind, name, props) { super(noop, name, props, undefined, "noop", kind); }
}
for (const { kind, name, metadata, spec } of objects()) new Noop(kind, name, { metadata, spec });
`,
};

/**
 * Writes the variant's Pulumi project into `dir`. Its `node_modules` is a link to the package root's, so
 * the program loads the package under test (`@exampledev/pulumi` links to that root) and the same
 * `@pulumi/pulumi` as the package.
 */
export function writeProgram(dir: string, variant: Variant, packageRoot: string): void {
  writeProject(dir, `bench-${variant}`, PROGRAMS[variant], path.join(packageRoot, "node_modules"));
}

/** A plain-JavaScript Pulumi project in `dir`: `index.js` is `source`, `node_modules` links to `nodeModules`. */
export function writeProject(dir: string, name: string, source: string, nodeModules: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n`,
  );
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, main: "index.js" }));
  writeFileSync(path.join(dir, "index.js"), source);
  symlinkSync(nodeModules, path.join(dir, "node_modules"));
}
