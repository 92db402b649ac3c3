// Every ```sh block of README.md, docs/*.md, kube/README.md and examples/*/README.md, run as written, the way a
// newcomer runs them after the quick start: each document on its own (a page starts the servers its blocks
// need), its blocks in order, each in a fresh `bash -e` with nothing but PATH (without the repository's
// node_modules/.bin or the pinned toolchain) and a new, empty HOME, from the root of a temporary copy of the
// repository (test/e2e/repo-copy.ts), so stacks, `.pulumi-state/` and server data never land in the real tree.
//
// Markers in a fence's info string, after `sh`:
//   skip-test (why)      not run; the reason is required, next to the marker (production URLs, the set-up itself)
//   background           long-running commands (servers) a reader leaves running in terminals of their own:
//                        each line is started on its own and must print its ready line ("listening on http…",
//                        the registry's "Ctrl-C stops…", `npm run kube`'s "kubeconfig: <path>") before the
//                        next block runs; after the document,
//                        one SIGTERM to each must stop it with nothing left running
//   expect-fail=TEXT     (or expect-fail="TEXT") the block must fail and its output contain TEXT, e.g. a
//                        preview that reports mandatory policy violations
//
// Each document runs in a network namespace of its own (`unshare -rn`) when the machine allows it, so the
// fixed ports the READMEs use (8080, 5000) are free and private to it; otherwise on the host's loopback.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { toolchainBinDir } from "../../scripts/lib/pulumi";
import { copyRepository, repoRoot } from "./repo-copy";

const BLOCK_TIMEOUT_MS = 600_000;
const READY_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 20_000;
const READY = /listening on https?:\/\/\S+|Ctrl-C stops|^kubeconfig: \S+$/m;

const documents = [
  "README.md",
  ...readdirSync(path.join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
  "kube/README.md",
  ...readdirSync(path.join(repoRoot, "examples"))
    .filter((name) => existsSync(path.join(repoRoot, "examples", name, "README.md")))
    .map((name) => `examples/${name}/README.md`),
];

interface Block {
  document: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  info: string;
  body: string;
  skip?: string;
  background: boolean;
  expectFail?: string;
}

/** The fenced code blocks of a Markdown document, with their markers. */
function codeBlocks(document: string, text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i] as string);
    if (!open) continue;
    const [, indent = "", fence = "", info = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const closing = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j] as string)?.[1] ?? "";
      if (closing[0] === fence[0] && closing.length >= fence.length) break;
      const line = lines[j] as string;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const lang = info.split(/\s+/)[0] ?? "";
    blocks.push({
      document,
      line: i + 1,
      lang,
      info,
      body: body.join("\n"),
      ...markers(info, document, i + 1),
    });
    i = j;
  }
  return blocks;
}

function markers(info: string, document: string, line: number) {
  const where = `${document}:${line}`;
  let rest = info.replace(/^\S*\s*/, "");
  const found: { skip?: string; background: boolean; expectFail?: string } = { background: false };
  while (rest) {
    const skip = /^skip-test\b\s*(.*)$/.exec(rest);
    const background = /^background\b\s*/.exec(rest);
    const expectFail = /^expect-fail=(?:"([^"]+)"|(\S+))\s*/.exec(rest);
    if (skip) {
      found.skip = skip[1]?.trim();
      if (!found.skip)
        throw new Error(`${where}: skip-test needs its reason next to it, e.g. "skip-test (why)"`);
      rest = "";
    } else if (background) {
      found.background = true;
      rest = rest.slice(background[0].length);
    } else if (expectFail) {
      found.expectFail = expectFail[1] ?? expectFail[2];
      rest = rest.slice(expectFail[0].length);
    } else {
      throw new Error(`${where}: unknown marker in the fence's info string: "${rest}"`);
    }
  }
  return found;
}

/** The environment of a fresh login shell: PATH without what npm or the test runner put first, a new HOME. */
function freshEnvironment(home: string): Record<string, string> {
  const binDir = toolchainBinDir();
  const PATH = [...new Set((process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(path.delimiter))]
    .filter((entry) => entry && !entry.includes("node_modules") && path.resolve(entry) !== binDir)
    .join(path.delimiter);
  // The toolchain (the Pulumi CLI and YAML host, kube-apiserver, etcd) is built once per machine (docs/development.md,
  // "Toolchain"): the new HOME finds the cached builds where scripts/toolchain/ looks for them, as any HOME on
  // this machine would after the first build.
  const cacheRoot = path.dirname(path.dirname(binDir));
  const builds = readdirSync(cacheRoot).filter((name) =>
    /^(pulumi|pulumi-yaml|kube-apiserver|etcd)-v\d/.test(name),
  );
  mkdirSync(path.join(home, ".cache/exampledev-pulumi"), { recursive: true });
  for (const name of builds) {
    symlinkSync(path.join(cacheRoot, name), path.join(home, ".cache/exampledev-pulumi", name));
  }
  return { PATH, HOME: home };
}

/** A private network namespace, when unprivileged user namespaces work here; commands are run through it. */
function networkNamespace(): { prefix: string[]; close(): void } | undefined {
  let holder: ChildProcess | undefined;
  try {
    holder = spawn("unshare", ["-rn", "sleep", "infinity"], { stdio: "ignore" });
    const prefix = ["nsenter", "--preserve-credentials", "-U", "-n", "-t", String(holder.pid)];
    // The holder needs a moment to enter its namespaces; retry until `ip` sees the new loopback.
    for (let attempt = 0; ; attempt++) {
      try {
        execFileSync(prefix[0] as string, [...prefix.slice(1), "ip", "link", "set", "lo", "up"], {
          stdio: "pipe",
        });
        break;
      } catch (error) {
        if (attempt > 50 || holder.exitCode !== null) throw error;
        execFileSync("sleep", ["0.05"]);
      }
    }
    const running = holder;
    return { prefix, close: () => running.kill("SIGKILL") };
  } catch (error) {
    holder?.kill("SIGKILL");
    console.warn(
      `no private network namespace (${(error as Error).message.split("\n")[0]}): using the host's`,
    );
    return undefined;
  }
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function bash(script: string, cwd: string, env: Record<string, string>, prefix: string[]): Run {
  const [command, ...args] = [...prefix, "bash", "-e", "-c", script];
  // Its own process group: what it leaves running can be found and stopped.
  const child = spawn(command as string, args, {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

const tail = (text: string) => text.split("\n").slice(-60).join("\n");
const describeBlock = (block: Block) => `${block.document}:${block.line} (\`\`\`${block.info})`;

async function runDocument(document: string): Promise<string[]> {
  const blocks = codeBlocks(document, readFileSync(path.join(repoRoot, document), "utf8")).filter(
    (block) => block.lang === "sh",
  );
  // As after the quick start's build: dist/ is the build of the sources.
  const copy = copyRepository("readme", { distIsCurrent: true });
  const home = mkdtempSync(path.join(tmpdir(), "exampledev-readme-home-"));
  const env = freshEnvironment(home);
  const namespace = networkNamespace();
  const prefix = namespace?.prefix ?? [];
  const background: { block: Block; command: string; run: Run }[] = [];
  const report: string[] = [];
  try {
    for (const block of blocks) {
      const where = describeBlock(block);
      if (block.skip !== undefined) {
        report.push(`skipped  ${where}`);
        continue;
      }
      const started = Date.now();
      if (block.background) {
        const commands = block.body.split("\n").filter((line) => line.trim() && !line.trim().startsWith("#"));
        for (const command of commands) {
          const run = bash(command, copy.dir, env, prefix);
          background.push({ block, command, run });
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(
              () =>
                reject(
                  new Error(
                    `${where}: \`${command}\` not ready in ${READY_TIMEOUT_MS / 1000} s:\n${tail(run.output())}`,
                  ),
                ),
              READY_TIMEOUT_MS,
            );
            const poll = setInterval(() => {
              if (READY.test(run.output())) {
                clearTimeout(timer);
                clearInterval(poll);
                resolve();
              }
            }, 100);
            run.exited.then(({ code, signal }) => {
              clearTimeout(timer);
              clearInterval(poll);
              reject(
                new Error(
                  `${where}: \`${command}\` exited (${code ?? signal}) before it was ready:\n${tail(run.output())}`,
                ),
              );
            });
          });
        }
        report.push(`started  ${where} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        continue;
      }
      const run = bash(block.body, copy.dir, env, prefix);
      const timeout = setTimeout(() => killGroup(run.child.pid as number), BLOCK_TIMEOUT_MS);
      const { code, signal } = await run.exited;
      clearTimeout(timeout);
      killGroup(run.child.pid as number);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const output = run.output();
      if (block.expectFail !== undefined) {
        if (code === 0 || !output.includes(block.expectFail)) {
          throw new Error(
            `${where} should fail with "${block.expectFail}" in its output, but exited ${code ?? signal}:\n${block.body}\n--- output (end) ---\n${tail(output)}`,
          );
        }
        report.push(`failed   ${where} as expected in ${seconds} s`);
      } else if (code !== 0) {
        throw new Error(
          `${where} failed (${code ?? signal}) after ${seconds} s:\n${block.body}\n--- output (end) ---\n${tail(output)}`,
        );
      } else {
        report.push(`ran      ${where} in ${seconds} s`);
      }
    }

    // What a reader leaves running in a terminal stops with one signal, with nothing left behind.
    for (const { block, command, run } of background.reverse()) {
      const pid = run.child.pid as number;
      run.child.kill("SIGTERM");
      const stopped = await Promise.race([
        run.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_TIMEOUT_MS)),
      ]);
      const deadline = Date.now() + 5_000;
      while (groupAlive(pid) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const left = groupAlive(pid);
      killGroup(pid);
      if (!stopped || left) {
        throw new Error(
          `${describeBlock(block)}: \`${command}\` ${stopped ? "left processes running" : "did not stop"} after one SIGTERM:\n${tail(run.output())}`,
        );
      }
    }
    return report;
  } finally {
    for (const { run } of background) killGroup(run.child.pid as number);
    namespace?.close();
    copy.dispose();
    rmSync(home, { recursive: true, force: true });
  }
}

// The documents run side by side: each has its own copy, HOME and network namespace.
describe.concurrent("the documents' command blocks, as written, in a fresh shell", () => {
  it("finds the blocks and their markers", () => {
    const all = documents.flatMap((document) =>
      codeBlocks(document, readFileSync(path.join(repoRoot, document), "utf8")),
    );
    // Shell commands go in ```sh fences, which this test runs; other names for a shell would escape it.
    expect(
      all.filter((block) => ["bash", "shell", "console", "zsh", "shell-session"].includes(block.lang)),
    ).toEqual([]);
    const sh = all.filter((block) => block.lang === "sh");
    expect(sh.length).toBeGreaterThan(10);
    // Skipping is the exception: each one says why (checked by the parser), and they stay few (the set-up,
    // a real API of one's own, the benchmark and the scale benchmark beside pulumi-kubernetes, a stack of
    // one's own against one's own cluster, the controller against one's own cluster, the webhook's
    // certificate made by hand on one's own cluster, the controller's git webhook Secret on one's own cluster,
    // the package in a project of one's own: the local server in its CI, the native plugin's install; and two
    // that a test runs in another form: the highly available control plane, policy analyze on one's stack).
    expect(sh.filter((block) => block.skip !== undefined).map(describeBlock)).toHaveLength(12);
  });

  for (const document of documents) {
    const hasShell = codeBlocks(document, readFileSync(path.join(repoRoot, document), "utf8")).some(
      (block) => block.lang === "sh" && block.skip === undefined,
    );
    it.skipIf(!hasShell)(
      document,
      async () => {
        const report = await runDocument(document);
        console.log(`${document}\n  ${report.join("\n  ")}`);
      },
      1_200_000,
    );
  }
});
