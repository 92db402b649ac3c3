// The running Node against what the package's dependencies need (package.json `engines.node`, the strictest
// of theirs: undici 8 asks for 22.19). Every entry point imports this module first: the package root and its
// subpaths (a program's first import, the dynamic-provider host's `@exampledev/pulumi/provider`), the server,
// the native plugin and the bins. On an older Node it fails at once with one line naming both versions, so a
// Pulumi program fails at `preview` rather than with a TypeError from undici at `up`.
//
// It must itself load on old Nodes: nothing but `process` and `require.main`, no syntax newer than ES2020.
// test/unit/node-version.test.ts checks REQUIRED_NODE against package.json and the dependencies' engines.

/** The oldest Node the package runs on: package.json `engines.node` is `>=` this. */
export const REQUIRED_NODE = "22.19.0";

/** Whether Node `found` (such as "20.20.2", from `process.versions.node`) is at least REQUIRED_NODE. */
export function nodeSatisfies(found: string, required: string = REQUIRED_NODE): boolean {
  const have = found.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const need = required.split(".").map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The one line printed (or thrown) on an older Node. */
export function nodeVersionMessage(found: string, execPath: string): string {
  return `@exampledev/pulumi needs Node.js >= ${REQUIRED_NODE} (its dependencies do); this is Node.js ${found} (${execPath}): put a newer node first on PATH.`;
}

if (!nodeSatisfies(process.versions.node)) {
  const message = nodeVersionMessage(process.versions.node, process.execPath);
  // A command of this package (its bins, the server, the plugin: the process's main module is ours), or an
  // ES module script or `node -e` (no CommonJS main module), prints the line and exits; a CommonJS host that
  // loads the package (Pulumi's program runner, the dynamic-provider host, a test runner) gets it thrown.
  const main = require.main?.filename;
  const ours = __dirname.slice(0, __dirname.length - "sdk/shared".length);
  if (main === undefined || (main.startsWith(ours) && !main.includes("node_modules", ours.length))) {
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
  // Pulumi's program runner prints a RunError's message alone (it tests `__pulumiRunError`), without the
  // stack; whatever else prints this error's stack prints the same line.
  const error = new Error(message) as Error & { __pulumiRunError?: boolean };
  error.__pulumiRunError = true;
  error.stack = message;
  throw error;
}
