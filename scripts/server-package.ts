// `npm run build`'s step after the declarations: the second npm package, `@exampledev/pulumi-server`, in
// dist/packages/server (`npm pack dist/packages/server`). It holds what runs beside a cluster or in a team's
// tests: the local API server with its controller, the controller's command and the admission webhook. Those
// need fastify, pino and tar-stream, which a Pulumi program never loads, so `@exampledev/pulumi` leaves them
// out (a program's install is smaller than @pulumi/kubernetes': docs/design.md).
//
// The package is the closure of its entry points: every compiled file (and declaration, for both module
// resolutions) they reach by relative import, at the same paths as in dist/, and as dependencies exactly the
// packages those files require, at the root package.json's ranges.
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";

const REPO = path.resolve(__dirname, "../..").replace(/[/\\]dist$/, "");
const DIST = path.join(REPO, "dist");
export const SERVER_PACKAGE_DIR = path.join(DIST, "packages/server");

export const SERVER_PACKAGE_NAME = "@exampledev/pulumi-server";

/** The commands the package installs, by bin name: the compiled entry points under dist/. */
export const SERVER_BINS: Readonly<Record<string, string>> = {
  "exampledev-server": "server/main.js",
  "exampledev-controller": "controller/main.js",
  "exampledev-admission-webhook": "webhook/main.js",
};

/**
 * The packages the server's code loads, declared here so that tests read them without a build: the build
 * fails when the code's closure names another, or no longer one of these. Ranges are package.json's.
 */
export const SERVER_DEPENDENCIES = [
  "fast-json-patch",
  "fastify",
  "json-merge-patch",
  "picomatch",
  "pino",
  "prom-client",
  "tar-stream",
  "undici",
  "yaml",
  "zod",
] as const;

/** What a program imports from the package: `startServer` and its types. */
const LIBRARY_ENTRY = "server/index";

const README = `# ${SERVER_PACKAGE_NAME}

The local API server of [\`@exampledev/pulumi\`](https://www.npmjs.com/package/@exampledev/pulumi) (the Proxy
and Compute Service Configuration API on one machine, its controller included), for a team's own tests and
demos, and the commands that run beside a Kubernetes API server:

- \`exampledev-server\`: the local API server (\`--help\` lists its flags; it prints \`listening on <url>\` once
  ready); \`startServer()\` from this package starts one in-process;
- \`exampledev-controller\`: the controller against a Kubernetes API server with the CRDs installed;
- \`exampledev-admission-webhook\`: the admission webhook kube-apiserver calls.

See docs/local-server.md and docs/kubernetes.md in the project's repository.
`;

/** The relative modules a compiled file requires, or a declaration file imports, as paths under dist/. */
function relativeTargets(file: string): string[] {
  const text = readFileSync(path.join(DIST, file), "utf8");
  const declaration = file.endsWith(".d.ts");
  const specifiers = [...text.matchAll(/(?:require\(|from |import\()"(\.{1,2}\/[^"]*)"/g)].map(
    (m) => m[1] ?? "",
  );
  return specifiers.map((specifier) => {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    const candidates = declaration
      ? [`${base}.d.ts`, `${base}/index.d.ts`, base]
      : [base, `${base}.js`, `${base}/index.js`, `${base}.json`];
    const found = candidates.find((candidate) =>
      statSync(path.join(DIST, candidate), { throwIfNoEntry: false })?.isFile(),
    );
    if (!found) throw new Error(`${file} imports ${specifier}, which is not in dist/`);
    return found;
  });
}

/** The packages a compiled file requires or a declaration imports (`@scope/name` or `name`), node's own aside. */
function packagesNamed(file: string): string[] {
  const text = readFileSync(path.join(DIST, file), "utf8");
  return [...text.matchAll(/(?:require\(|from |import\()"([^".][^"]*)"/g)]
    .map((m) => m[1] ?? "")
    .filter((specifier) => !specifier.startsWith("node:") && !builtinModules.includes(specifier))
    .map((specifier) =>
      specifier
        .split("/")
        .slice(0, specifier.startsWith("@") ? 2 : 1)
        .join("/"),
    );
}

/** Every file reached from `entries` by relative imports, the entries included. */
function closure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...relativeTargets(file));
  }
  return seen;
}

/** The package's files under dist/, and the packages its code requires. */
export function serverPackageContents(): { files: string[]; dependencies: string[] } {
  const code = closure([...Object.values(SERVER_BINS), `${LIBRARY_ENTRY}.js`]);
  const types = closure([`${LIBRARY_ENTRY}.d.ts`, `node10/${LIBRARY_ENTRY}.d.ts`]);
  const files = [...code, ...types].sort();
  return { files, dependencies: [...new Set(files.flatMap(packagesNamed))].sort() };
}

export function writeServerPackage(): number {
  const root = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8"));
  const ranges: Record<string, string> = { ...root.devDependencies, ...root.dependencies };
  const { files, dependencies } = serverPackageContents();
  if (dependencies.join() !== [...SERVER_DEPENDENCIES].sort().join())
    throw new Error(`the server's code loads ${dependencies.join(", ")}: make SERVER_DEPENDENCIES say so`);
  const missing = dependencies.filter((name) => ranges[name] === undefined);
  if (missing.length > 0)
    throw new Error(`the server package requires ${missing.join(", ")}, not in package.json`);
  rmSync(SERVER_PACKAGE_DIR, { recursive: true, force: true });
  for (const file of files) {
    const target = path.join(SERVER_PACKAGE_DIR, "dist", file);
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(path.join(DIST, file), target);
  }
  const manifest = {
    name: SERVER_PACKAGE_NAME,
    version: root.version,
    description:
      "The local API server (its controller included) and the Kubernetes commands of @exampledev/pulumi",
    license: root.license,
    type: "commonjs",
    main: `./dist/${LIBRARY_ENTRY}.js`,
    types: `./dist/node10/${LIBRARY_ENTRY}.d.ts`,
    exports: {
      ".": { types: `./dist/${LIBRARY_ENTRY}.d.ts`, default: `./dist/${LIBRARY_ENTRY}.js` },
      "./package.json": "./package.json",
    },
    bin: Object.fromEntries(Object.entries(SERVER_BINS).map(([name, file]) => [name, `./dist/${file}`])),
    engines: root.engines,
    dependencies: Object.fromEntries(dependencies.map((name) => [name, ranges[name]])),
  };
  writeFileSync(path.join(SERVER_PACKAGE_DIR, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(path.join(SERVER_PACKAGE_DIR, "README.md"), README);
  return files.length;
}

if (require.main === module) {
  const count = writeServerPackage();
  console.log(`[build] ${SERVER_PACKAGE_NAME}: ${count} files in dist/packages/server`);
}
