// The package as a new user meets it: `npm pack` (what `npm publish` uploads), installed from the tarball in
// a new project laid out by `pulumi new typescript` (its tsconfig: commonjs, moduleResolution node, no
// esModuleInterop, no skipLibCheck), outside the repository. What is shipped, `tsc` under each module setting,
// the bins (`exampledev-server`, `exampledev-plugin`), up and destroy through the CLI with the project's own
// TypeScript, `pulumi import` with the plugin the bin installed, and a Node too old for the dependencies.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLUGIN_DEPENDENCIES } from "../../provider/native/plugin-cli";
import { REQUIRED_NODE } from "../../sdk/shared/node-version";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { installUserProgram, SERVER_PACKAGE, type UserProgram } from "../helpers/user-program";
import {
  type BinServer,
  filesUnder,
  node20,
  relativeSpecifiers,
  resolvesIn,
  startBinServer,
  stopGroup,
} from "./package-install-helpers";

const REPO = path.resolve(__dirname, "../..");
const FIXTURE = path.join(__dirname, "fixtures/package-install");
const ROOT_MANIFEST = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8"));
const PACKAGE_DIR = (project: string) => path.join(project, "node_modules/@exampledev/pulumi");

describe("the package from npm pack in a new project", () => {
  let program: UserProgram;
  let registry: Registry;
  let server: BinServer | undefined;
  let t: TestStack;
  let digest: string;
  /** The user's environment: the pinned Node and the CLI first on PATH, the stack's PULUMI_HOME. */
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    registry = await startRegistry();
    digest = await pushArtifact(registry, { path: "team/packed", tag: "v1", content: "packed bundle" });
    const started = Date.now();
    program = installUserProgram(
      FIXTURE,
      {
        dependencies: { "@pulumi/pulumi": "^3.0.0" },
        devDependencies: {
          typescript: ROOT_MANIFEST.devDependencies.typescript,
          "@types/node": ROOT_MANIFEST.devDependencies["@types/node"],
        },
      },
      { withServer: true },
    );
    console.log(`[package] npm pack + npm install in a new project: ${Date.now() - started} ms`);
    t = await createTestStack(program.dir);
    env = { ...process.env, ...t.env };
    for (const key of Object.keys(env)) if (key.toLowerCase().startsWith("npm_")) delete env[key];
  });

  afterAll(async () => {
    await stopGroup(server?.process);
    await t?.dispose();
    program?.dispose();
    await registry?.stop();
  });

  it("ships what a user runs: no source maps, no build or benchmark tools, every relative import inside", () => {
    const dir = PACKAGE_DIR(program.dir);
    const files = filesUnder(dir);
    const tarball = readdirSync(program.dir).find((name) => name.endsWith(".tgz")) ?? "";
    const bytes = statSync(path.join(program.dir, tarball)).size;
    console.log(`[package] ${tarball}: ${bytes} bytes, ${files.length} files`);
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
    expect(files.filter((file) => /^dist\/(scripts|bench|test)\//.test(file))).toEqual([]);
    const shipped = new Set(files);
    const unresolved = files
      .filter((file) => file.endsWith(".js") || file.endsWith(".d.ts"))
      .flatMap((file) =>
        relativeSpecifiers(readFileSync(path.join(dir, file), "utf8"))
          .filter((specifier) => !resolvesIn(shipped, file, specifier, file.endsWith(".d.ts")))
          .map((specifier) => `${file}: ${specifier}`),
      );
    expect(unresolved).toEqual([]);
    for (const bin of Object.values(ROOT_MANIFEST.bin as Record<string, string>))
      expect(shipped.has(path.posix.normalize(bin))).toBe(true);

    // The plugin copies PLUGIN_DEPENDENCIES: every package its entry point's require graph reaches.
    const reached = new Set<string>();
    const queue = ["dist/provider/native/main.js"];
    const seen = new Set<string>();
    for (let file = queue.pop(); file; file = queue.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(path.join(dir, file), "utf8");
      for (const [, specifier = ""] of text.matchAll(/require\("([^"]+)"\)/g)) {
        if (specifier.startsWith(".")) {
          const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
          const target = [base, `${base}.js`, `${base}/index.js`].find(
            (f) => shipped.has(f) && f.endsWith(".js"),
          );
          if (target) queue.push(target);
        } else if (!specifier.startsWith("node:")) {
          const parts = specifier.split("/");
          reached.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? ""));
        }
      }
    }
    expect([...reached].sort()).toEqual([...PLUGIN_DEPENDENCIES].sort());
  });

  it("type-checks a program importing every entry point: the template tsconfig, node16, nodenext, bundler", () => {
    const tsc = path.join(program.dir, "node_modules/.bin/tsc");
    const template = JSON.parse(readFileSync(path.join(FIXTURE, "tsconfig.json"), "utf8"));
    expect(template.compilerOptions).not.toHaveProperty("skipLibCheck");
    expect(template.compilerOptions).not.toHaveProperty("esModuleInterop");
    const settings: Record<string, { module: string; moduleResolution: string }> = {
      template: template.compilerOptions,
      node16: { module: "node16", moduleResolution: "node16" },
      nodenext: { module: "nodenext", moduleResolution: "nodenext" },
      bundler: { module: "esnext", moduleResolution: "bundler" },
    };
    for (const [name, options] of Object.entries(settings)) {
      const config = path.join(program.dir, `tsconfig.${name}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          compilerOptions: {
            ...template.compilerOptions,
            module: options.module,
            moduleResolution: options.moduleResolution,
            noEmit: true,
          },
          files: ["index.ts"],
        }),
      );
      const run = spawnSync(tsc, ["-p", config, "--pretty", "false"], {
        cwd: program.dir,
        encoding: "utf8",
        env,
      });
      console.log(`[package] tsc (${name}): exit ${run.status}${run.stdout ? `\n${run.stdout}` : ""}`);
      expect({ name, status: run.status, errors: run.stdout }).toEqual({ name, status: 0, errors: "" });
    }
  });

  it("starts the local server with npx exampledev-server, which prints its URL once ready", async () => {
    const help = spawnSync("npx", ["exampledev-server", "--help"], {
      cwd: program.dir,
      env,
      encoding: "utf8",
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: exampledev-server /);
    const started = Date.now();
    server = await startBinServer(program.dir, env);
    console.log(`[package] npx exampledev-server: ${server.url} in ${Date.now() - started} ms`);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it("runs preview with the package's policy pack, up and destroy through the CLI, the program compiled by its own TypeScript", async () => {
    if (!server) throw new Error("the server did not start");
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      repo: { value: registry.repo("team/packed") },
      digest: { value: digest },
    });
    // The policy pack from the installed package, as the docs' CI job runs it.
    const policyPack = path.join(PACKAGE_DIR(program.dir), "policies");
    const checked = await t.stack.preview({ policyPacks: [policyPack] });
    expect(checked.changeSummary).toEqual({ create: 3 });
    const up = await t.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toMatchObject({ create: 3 });
    expect(up.outputs.liveRevision?.value).toMatch(/^hello-/);
    expect(up.outputs.entryPoints?.value).toMatchObject({ client: "function", provider: "function" });
    const preview = await t.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 3 });
    const destroy = await t.stack.destroy();
    expect(destroy.summary.resourceChanges).toMatchObject({ delete: 3 });
  });

  it("installs the native plugin with npx exampledev-plugin, for pulumi import of an object made with curl", async () => {
    if (!server) throw new Error("the server did not start");
    const pluginDir = path.join(
      t.env.PULUMI_HOME ?? "",
      "plugins",
      `resource-exampledev-v${ROOT_MANIFEST.version}`,
    );
    const help = spawnSync("npx", ["exampledev-plugin", "--help"], {
      cwd: program.dir,
      env,
      encoding: "utf8",
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: exampledev-plugin /);
    const installed = execFileSync("npx", ["exampledev-plugin", "install"], {
      cwd: program.dir,
      env,
      encoding: "utf8",
    });
    console.log(`[package] ${installed.trim()}`);
    expect(existsSync(path.join(pluginDir, "pulumi-resource-exampledev"))).toBe(true);

    // Self-contained: it starts (and prints its port) with the project's node_modules moved away.
    const moved = path.join(program.dir, "node_modules.moved");
    renameSync(path.join(program.dir, "node_modules"), moved);
    try {
      const plugin = spawn(path.join(pluginDir, "pulumi-resource-exampledev"), [], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const port = await new Promise<string>((resolve, reject) => {
        let out = "";
        plugin.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (/^\d+\s*$/m.test(out)) resolve(out.trim());
        });
        plugin.stderr.on("data", (chunk: Buffer) => {
          out += chunk.toString();
        });
        plugin.on("exit", (code) => reject(new Error(`the plugin exited (${code}): ${out}`)));
      });
      plugin.kill();
      expect(Number(port)).toBeGreaterThan(0);
    } finally {
      renameSync(moved, path.join(program.dir, "node_modules"));
    }

    execFileSync(
      "curl",
      [
        "-sf",
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        `${server.url}/apis/core.example.dev/v1alpha2/proxies`,
        "-d",
        JSON.stringify({
          apiVersion: "core.example.dev/v1alpha2",
          kind: "Proxy",
          metadata: { name: "made-with-curl", labels: { owner: "ops" } },
          spec: { shutdown: { drainTimeout: "1s", minimumDrainTime: "1s" } },
        }),
      ],
      { encoding: "utf8" },
    );
    const project = path.join(program.dir, "import");
    const imported = await createTestStack(project, { stackName: "imported" });
    try {
      await imported.stack.setAllConfig({ "exampledev:baseUrl": { value: server.url } });
      // The plugin the bin put into this test's PULUMI_HOME, which the second stack shares.
      const importEnv = { ...env, ...imported.env, PULUMI_HOME: t.env.PULUMI_HOME ?? "" };
      const importRun = spawnSync(
        "pulumi",
        [
          "import",
          "exampledev:core/v1alpha2:Proxy",
          "edge",
          "made-with-curl",
          "--yes",
          "--protect=false",
          "--out",
          "index.ts",
          "--stack",
          "imported",
        ],
        { cwd: project, env: importEnv, encoding: "utf8" },
      );
      console.log(
        `[package] pulumi import: exit ${importRun.status}\n${importRun.stdout}${importRun.stderr}`,
      );
      expect(importRun.status).toBe(0);
      const code = readFileSync(path.join(project, "index.ts"), "utf8");
      expect(code).toContain('from "@exampledev/pulumi/native"');
      const tsc = spawnSync(
        path.join(program.dir, "node_modules/.bin/tsc"),
        ["-p", ".", "--noEmit", "--pretty", "false"],
        {
          cwd: project,
          encoding: "utf8",
        },
      );
      expect({ status: tsc.status, errors: tsc.stdout }).toEqual({ status: 0, errors: "" });
      const preview = spawnSync("pulumi", ["preview", "--expect-no-changes", "--stack", "imported"], {
        cwd: project,
        env: importEnv,
        encoding: "utf8",
      });
      console.log(
        `[package] preview of the imported program: exit ${preview.status}\n${preview.stdout}${preview.stderr}`,
      );
      expect(preview.status).toBe(0);
      const destroy = spawnSync("pulumi", ["destroy", "--yes", "--stack", "imported"], {
        cwd: project,
        env: importEnv,
        encoding: "utf8",
      });
      expect(destroy.status).toBe(0);
    } finally {
      await imported.dispose();
    }

    const removed = execFileSync("npx", ["exampledev-plugin", "uninstall"], {
      cwd: program.dir,
      env,
      encoding: "utf8",
    });
    console.log(`[package] ${removed.trim()}`);
    expect(existsSync(pluginDir)).toBe(false);
  });

  it("on Node 20, fails the preview with one line naming the Node version needed, as every entry point does", () => {
    const node = node20();
    const found = execFileSync(node, ["--version"], { encoding: "utf8" }).trim().slice(1);
    const needed = `needs Node.js >= ${REQUIRED_NODE}`;
    const line = `this is Node.js ${found} (${node})`;
    // Node 20 first on PATH, before the pinned Node; the CLI's directory stays first.
    const [cliDir, ...rest] = (t.env.PATH ?? "").split(path.delimiter);
    const old = { ...env, PATH: [cliDir, path.dirname(node), ...rest].join(path.delimiter) };
    expect(execFileSync("node", ["--version"], { env: old, encoding: "utf8" }).trim()).toBe(`v${found}`);

    const preview = spawnSync("pulumi", ["preview", "--stack", t.stack.name, "--non-interactive"], {
      cwd: program.dir,
      env: old,
      encoding: "utf8",
    });
    const output = preview.stdout + preview.stderr;
    console.log(`[package] pulumi preview on Node ${found}: exit ${preview.status}\n${output}`);
    expect(preview.status).not.toBe(0);
    expect(output).toContain(needed);
    expect(output).toContain(line);
    expect(output).not.toContain("TypeError");
    expect(output).not.toMatch(/^\s+at /m); // no stack trace

    // Each subpath a program or the dynamic-provider host loads, and each bin, the same way.
    const expected = `@exampledev/pulumi ${needed} (its dependencies do); ${line}: put a newer node first on PATH.`;
    const modules = ["", "/schema", "/client", "/provider", "/native", "-server"].map(
      (end) => `@exampledev/pulumi${end}`,
    );
    for (const name of modules) {
      for (const args of [
        ["-e", `require("${name}")`],
        ["--input-type=module", "-e", `import "${name}"`],
      ]) {
        const run = spawnSync(node, args, { cwd: program.dir, encoding: "utf8" });
        expect({ args, status: run.status, stderr: run.stderr.trim() }).toEqual({
          args,
          status: 1,
          stderr: expected,
        });
      }
    }
    const serverManifest = JSON.parse(readFileSync(path.join(SERVER_PACKAGE, "package.json"), "utf8"));
    for (const bin of [...Object.keys(ROOT_MANIFEST.bin), ...Object.keys(serverManifest.bin)]) {
      const run = spawnSync(bin, ["--help"], {
        cwd: program.dir,
        env: { ...old, PATH: `${path.join(program.dir, "node_modules/.bin")}${path.delimiter}${old.PATH}` },
        encoding: "utf8",
      });
      expect({ bin, status: run.status, stderr: run.stderr.trim(), stdout: run.stdout }).toEqual({
        bin,
        status: 1,
        stderr: expected,
        stdout: "",
      });
    }
  });
});
