import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

// What package-install.test.ts inspects and starts: the packed files and what their imports resolve to, the
// server its bin starts, and an older Node.

/** A Node 20 (Debian's `nodejs` package), installed with apt-get where none is on the machine. */
export function node20(): string {
  const candidates = ["/usr/bin/node", "/bin/node", "/usr/local/bin/node"];
  const found = () =>
    candidates.find((node) => {
      const run = spawnSync(node, ["--version"], { encoding: "utf8" });
      return run.status === 0 && run.stdout.startsWith("v20.");
    });
  const existing = found();
  if (existing) return existing;
  execFileSync("bash", ["-c", "apt-get update -qq && apt-get install -y -qq nodejs"], { stdio: "inherit" });
  const installed = found();
  if (!installed) throw new Error("no Node 20 after apt-get install nodejs");
  return installed;
}

/** Every file under `dir`, as paths relative to it with `/`. */
export function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** The relative specifiers a compiled file requires (`.js`) or imports (`.d.ts`). */
export function relativeSpecifiers(text: string): string[] {
  const found = [...text.matchAll(/(?:require\(|from |import\(|import )"(\.{1,2}\/[^"]*)"/g)].map(
    (m) => m[1] ?? "",
  );
  return found.filter((specifier) => specifier !== "");
}

/** The file a relative specifier of `from` names is among `files` (a declaration's, or a module's). */
export function resolvesIn(
  files: Set<string>,
  from: string,
  specifier: string,
  declaration: boolean,
): boolean {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const extensions = declaration ? [".d.ts", "/index.d.ts", ""] : ["", ".js", ".json", "/index.js"];
  return extensions.some((extension) => files.has(`${base}${extension}`));
}

/** The server `npx exampledev-server` started, its URL read from the line it prints once ready. */
export interface BinServer {
  url: string;
  process: ChildProcess;
  output: () => string;
}

export function startBinServer(cwd: string, env: NodeJS.ProcessEnv): Promise<BinServer> {
  const child = spawn("npx", ["exampledev-server", "--memory", "--port", "0"], {
    cwd,
    env,
    detached: true, // its own process group: npx does not pass SIGTERM on, so the test stops the group
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" in 30 s:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^listening on (http:\/\/\S+)$/m.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, process: child, output: () => output });
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`exampledev-server exited (${code}):\n${output}`)));
  });
}

export function stopGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on("exit", () => resolve());
    process.kill(-(child.pid as number), "SIGTERM");
  });
}
