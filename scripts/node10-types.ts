// `npm run build`'s last step: the package's declarations for projects that resolve modules the legacy way
// (`"moduleResolution": "node"`, the tsconfig of `pulumi new typescript`), in dist/node10/.
//
// Such a project reads `typesVersions` and `types` in package.json (never `exports`), and has no
// `esModuleInterop`. Two dependencies' CommonJS declarations need that flag: zod's (`zod/v4/locales/index.d.cts`
// default-imports files declared with `export =`: 63 errors) and pino's (`import ThreadStream from
// 'thread-stream'`), so a project without `skipLibCheck` fails in them. The copies here differ from dist/ in
// their imports only: zod's ES module declarations (`zod/index.js`, which legacy resolution reaches by path,
// the same types) instead of its CommonJS ones, and small stand-ins for pino's and fastify's (STAND_INS). `exports` (node16, nodenext, bundler: esModuleInterop implied) keeps pointing at dist/ itself.
// test/e2e/package-install.test.ts type-checks a program importing every entry point under each setting.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const REPO = path.resolve(__dirname, "../..").replace(/[/\\]dist$/, "");
const DIST = path.join(REPO, "dist");
const OUT = path.join(DIST, "node10");

/** The folders of dist/ that are tooling, never shipped: every other folder's declarations get a copy. */
const UNSHIPPED = new Set(["scripts", "bench", "test", "node10", "packages"]);

/**
 * Dependencies whose declarations need esModuleInterop, and the local declaration that stands for what ours
 * use of each: pino's `Logger` (a pino logger is one); fastify's types (they import pino's), loosely, for the
 * server's internals a program does not call (`@exampledev/pulumi-server`'s `startServer` and `RunningServer`
 * keep their types).
 */
const STAND_INS: Record<string, { file: string; text: string }> = {
  pino: {
    file: "pino-logger",
    text: `// pino's Logger as this package's declarations use it, for projects without esModuleInterop, where pino's
// own declarations do not compile (scripts/node10-types.ts). A pino logger is one.
type LogFn = (...args: any[]) => void;
export interface Logger {
  level: string;
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  trace: LogFn;
  child(bindings: Record<string, unknown>, options?: object): Logger;
}
`,
  },
  fastify: {
    file: "fastify-types",
    text: `// fastify's types as this package's declarations name them, for projects without esModuleInterop, where
// fastify's own declarations do not compile (they import pino's; scripts/node10-types.ts). Loose: with
// moduleResolution node16, nodenext or bundler, the package's declarations use fastify's.
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type FastifyInstance = any;
export type FastifyReply = any;
export type FastifyPluginAsync<Options = Record<never, never>> = (instance: any, options: Options) => Promise<void>;
`,
  },
};

/** One declaration file as the legacy resolver's copy: `relative` is its path under dist/. */
export function legacyDeclaration(text: string, relative: string): string {
  let result = text.replace(/(from |import\()"zod"/g, '$1"zod/index.js"');
  for (const [name, standIn] of Object.entries(STAND_INS)) {
    const to = path.posix.relative(path.posix.dirname(relative), standIn.file);
    const specifier = to.startsWith(".") ? to : `./${to}`;
    result = result
      .replaceAll(`from "${name}"`, `from "${specifier}"`)
      .replaceAll(`import("${name}")`, `import("${specifier}")`);
  }
  return result;
}

function* declarations(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* declarations(file);
    else if (entry.name.endsWith(".d.ts")) yield file;
  }
}

export function writeLegacyDeclarations(): number {
  rmSync(OUT, { recursive: true, force: true });
  let count = 0;
  const roots = readdirSync(DIST, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && !UNSHIPPED.has(entry.name),
  );
  for (const { name: root } of roots) {
    for (const file of declarations(path.join(DIST, root))) {
      const relative = path.relative(DIST, file).split(path.sep).join("/");
      const target = path.join(OUT, relative);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, legacyDeclaration(readFileSync(file, "utf8"), relative));
      count++;
    }
  }
  for (const standIn of Object.values(STAND_INS))
    writeFileSync(path.join(OUT, `${standIn.file}.d.ts`), standIn.text);
  return count;
}

if (require.main === module) {
  const count = writeLegacyDeclarations();
  console.log(`[build] ${count} declarations for moduleResolution node in dist/node10`);
}
