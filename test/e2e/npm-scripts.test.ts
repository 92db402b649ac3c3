// `npm run server`, `npm run registry` and `npm run kube` as a person runs them: one SIGTERM to the npm process stops
// everything it started, and a start with a current dist/ does not rebuild. They run in a temporary copy of
// the repository, so a build they trigger never touches the working tree's dist/.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, utimesSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRepository, type RepoCopy } from "./repo-copy";

/** Parent pid of every process, read from /proc. */
function parentPids(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name in parentheses may hold spaces: the fields after its closing parenthesis are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Exited while we read.
    }
  }
  return parents;
}

function descendants(pid: number): number[] {
  const parents = parentPids();
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Started {
  child: ChildProcess;
  output: () => string;
  /** Milliseconds from spawn to the ready line. */
  startMs: number;
}

/** `npm run <script> -- <args>` in its own process group, resolved once `ready` appears in its output. */
async function npmRun(cwd: string, script: string, args: string[], ready: RegExp): Promise<Started> {
  const started = Date.now();
  const child = spawn("npm", ["run", script, "--", ...args], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_loglevel: "warn" },
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm run ${script}: not ready in 180 s:\n${output}`)),
      180_000,
    );
    const check = () => {
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`npm run ${script} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
  return { child, output: () => output, startMs: Date.now() - started };
}

/** SIGTERM to the npm process alone; resolves with what was running under it and whether it is all gone. */
async function stopWithOneSigterm({ child }: Started) {
  const pid = child.pid as number;
  const tree = descendants(pid).map((p) => ({ pid: p, command: commandLine(p) }));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  child.kill("SIGTERM");
  const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 20_000));
  const exit = await Promise.race([exited, timeout]);
  // Give what npm started a moment to finish exiting after npm itself.
  const deadline = Date.now() + 10_000;
  while (tree.some((p) => alive(p.pid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const left = tree.filter((p) => alive(p.pid));
  // Clean up whatever a failure left behind (the whole process group we created).
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Nothing left in the group.
  }
  return { tree, exit, left };
}

describe("npm run server, npm run registry and npm run kube", () => {
  let copy: RepoCopy;
  const running: Started[] = [];

  beforeAll(() => {
    // dist/ as `npm run build` leaves it: current, so the signal tests start at once.
    copy = copyRepository("npm-scripts", { distIsCurrent: true });
  });
  afterAll(() => {
    for (const { child } of running) {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    copy?.dispose();
  });

  const start = async (script: string, args: string[], ready: RegExp) => {
    const started = await npmRun(copy.dir, script, args, ready);
    running.push(started);
    return started;
  };

  it("one SIGTERM to `npm run server` stops the server: no node process is left", async () => {
    const server = await start(
      "server",
      ["--port", "0", "--memory"],
      /listening on http:\/\/127\.0\.0\.1:\d+/,
    );
    const { tree, exit, left } = await stopWithOneSigterm(server);
    // The npm script execs the server: npm's child is the node process itself, not a shell around it.
    expect(tree.map((p) => p.command)).toEqual([
      expect.stringMatching(/node .*dist\/server\/main\.js --port 0/),
    ]);
    expect(exit).not.toBe("timeout");
    expect(left).toEqual([]);
    expect(server.output()).not.toMatch(/again: exiting without waiting/);
  });

  it("one SIGTERM to `npm run registry` stops docker-registry and removes its storage", async () => {
    const registry = await start("registry", ["--port", "0"], /Ctrl-C stops the registry/);
    const bundle = /bundleRepo +(\S+)/.exec(registry.output())?.[1];
    expect(bundle).toMatch(/^127\.0\.0\.1:\d+\/demo\/hello$/);
    const commands = descendants(registry.child.pid as number).map(commandLine);
    const config = commands.join("\n").match(/docker-registry serve (\S+)/)?.[1];
    expect(config, commands.join("\n")).toBeDefined();
    const { exit, left } = await stopWithOneSigterm(registry);
    expect(exit).not.toBe("timeout");
    expect(left).toEqual([]);
    expect(existsSync(path.dirname(config as string))).toBe(false);
    // The sample bundle's content is fixed, so the digest the READMEs show is the one pushed.
    expect(registry.output()).toContain(
      "digest     sha256:0bb9b6799ae88b46d07f76d558fa3950180bf992cfaf243a7aece1eed200a6fe",
    );
  });

  it("`npm run kube -- --dir`: ready with a kubeconfig kubectl uses, stopped by one SIGTERM, its objects there again at the next start", async () => {
    const dir = path.join(copy.dir, ".kube-data");
    const ready = /^kubeconfig: (\S+)$/m;
    const first = await start("kube", ["--dir", dir], ready);
    const kubeconfig = ready.exec(first.output())?.[1] as string;
    expect(kubeconfig).toBe(path.join(dir, "kubeconfig"));
    const kubectl = (args: string[], input?: string) =>
      execFileSync("kubectl", [`--kubeconfig=${kubeconfig}`, ...args], { encoding: "utf8", input });
    const proxy = {
      apiVersion: "core.example.dev/v1alpha2",
      kind: "Proxy",
      metadata: { name: "kept" },
      spec: {},
    };
    kubectl(["create", "-f", "-"], JSON.stringify(proxy));
    // The controller runs under it: a Service gets its revision.
    const service = {
      apiVersion: "compute.example.dev/v1alpha1",
      kind: "Service",
      metadata: { name: "minted" },
      spec: {
        source: { oci: { repo: "registry.example.dev/team/app", digest: `sha256:${"0".repeat(64)}` } },
        template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
      },
    };
    kubectl(["create", "-f", "-"], JSON.stringify(service));
    const latest = () =>
      kubectl(["get", "services.compute.example.dev/minted", "-o", "jsonpath={.status.latestRevision}"]);
    const deadline = Date.now() + 60_000;
    while (latest() === "" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(latest()).toMatch(/^minted-[0-9a-f]{10}$/);
    const stopped = await stopWithOneSigterm(first);
    // etcd, kube-apiserver and kube-controller-manager ran under it (and the controller in it), and went with it.
    expect(stopped.tree.map((p) => p.command)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/kube-apiserver /),
        expect.stringMatching(/kube-controller-manager /),
        expect.stringMatching(/(^|\/)etcd --name /),
      ]),
    );
    expect(stopped.exit).not.toBe("timeout");
    expect(stopped.left).toEqual([]);

    const second = await start("kube", ["--dir", dir], ready);
    expect(kubectl(["get", "proxies.core.example.dev", "-o", "name"]).trim()).toBe(
      "proxy.core.example.dev/kept",
    );
    expect((await stopWithOneSigterm(second)).left).toEqual([]);
  });

  it("starts without building when dist/ is current, and builds after a source changed", async () => {
    const ready = /listening on http:\/\/127\.0\.0\.1:\d+/;
    const builds = /\[run-built\] dist\/ is missing or older than the sources/;
    const current = await start("server", ["--port", "0", "--memory"], ready);
    expect((await stopWithOneSigterm(current)).left).toEqual([]);
    expect(current.output()).not.toMatch(builds);
    expect(current.output()).not.toMatch(/> tsc /);

    const source = path.join(copy.dir, "server/main.ts");
    // Saved now: after the stamp the copy was made with, before the one of the build it triggers.
    const now = new Date();
    utimesSync(source, now, now);
    // Either the build succeeds and the server starts, or it fails and the stale dist/ is not started: which
    // one depends on whether the working tree compiles right now, not on the script.
    const rebuilt = await start("server", ["--port", "0", "--memory"], ready).catch((error: Error) => error);
    if (rebuilt instanceof Error) {
      expect(rebuilt.message).toMatch(builds);
      expect(rebuilt.message).toMatch(/the build failed; not starting dist\/server\/main\.js/);
      console.log(`the copy does not compile, so no server started:\n${rebuilt.message}`);
      return;
    }
    expect((await stopWithOneSigterm(rebuilt)).left).toEqual([]);
    expect(rebuilt.output()).toMatch(builds);
    // The build's stamp makes the next start immediate again.
    const again = await start("server", ["--port", "0", "--memory"], ready);
    expect((await stopWithOneSigterm(again)).left).toEqual([]);
    expect(again.output()).not.toMatch(builds);
    console.log(
      `npm run server until "listening on": ${current.startMs} ms (dist/ current), ` +
        `${rebuilt.startMs} ms (after a source changed: a build), ${again.startMs} ms (current again)`,
    );
  });
});
