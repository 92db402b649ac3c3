// Pulumi YAML through the native package, as a team that writes no code runs it: examples/yaml (a Proxy, a
// Service from an OCI bundle, a lookup with fn::invoke, a secret config value) with the YAML language host
// (scripts/toolchain/yaml.sh) and the plugin installed by `exampledev-plugin install`, through the real CLI
// (Automation API), on the local server and on kube-apiserver (test/helpers/backends.ts). One stack per
// backend; on the local server the same stack then previews the mistakes a YAML user meets.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolchainBinDir } from "../../scripts/lib/pulumi";
import { NATIVE_TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const REPO = path.resolve(__dirname, "../..");
const PACKAGE: { bin: { "exampledev-plugin": string } } = JSON.parse(
  readFileSync(path.join(REPO, "package.json"), "utf8"),
);
const EXAMPLE = path.join(REPO, "examples/yaml");
const API_KEY = "yaml-api-key-e2e-7b2f";

const timed = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
  const started = Date.now();
  try {
    return await run();
  } finally {
    console.log(`[yaml e2e] ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
};

/** The preview's failure as the CLI printed it, or undefined when it passed. */
async function failedPreview(t: TestStack, options: { policyPacks?: string[] } = {}) {
  const printed: string[] = [];
  return t.stack.preview({ ...options, onOutput: (line) => printed.push(line) }).then(
    () => undefined,
    (error: unknown) => `${printed.join("")}\n${String(error)}`,
  );
}

beforeAll(() => {
  // The language host and the converter next to the pinned CLI (built by setup; seconds when cached).
  execFileSync("bash", [path.join(REPO, "scripts/toolchain/yaml.sh"), "--cli-bin", toolchainBinDir()], {
    stdio: ["ignore", "ignore", "inherit"],
  });
});

describe.each(BACKENDS)("a Pulumi YAML program through the real CLI, on the %s server", (backendName) => {
  let backend: Backend;
  let registry: Registry;
  let t: TestStack;
  let project: string;
  let digest: string;
  let program: string;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  beforeAll(async () => {
    [backend, registry] = await Promise.all([startBackend(backendName), startRegistry()]);
    digest = await pushArtifact(registry, { path: "team/yaml", tag: "v1", content: "yaml bundle" });
    // The example from a copy: the stack's settings file goes beside its Pulumi.yaml, and the mistakes below
    // are written into it.
    project = mkdtempSync(path.join(tmpdir(), "exampledev-yaml-"));
    cpSync(EXAMPLE, project, { recursive: true });
    program = readFileSync(path.join(project, "Pulumi.yaml"), "utf8");
    t = await createTestStack(project);
    // As a user does (docs/native-package.md), into the test's PULUMI_HOME: the package's bin, which npm links
    // into node_modules/.bin of a project that installs it (not of this checkout, where npm ci precedes the build).
    await timed("exampledev-plugin install", async () =>
      execFileSync(process.execPath, [path.join(REPO, PACKAGE.bin["exampledev-plugin"]), "install"], {
        env: { ...process.env, ...t.env },
        stdio: ["ignore", "ignore", "inherit"],
      }),
    );
    await t.stack.setAllConfig({
      ...backend.config,
      bundleRepo: { value: registry.repo("team/yaml") },
      bundleDigest: { value: digest },
      apiKey: { value: API_KEY, secret: true },
    });
  });

  afterAll(async () => {
    await t?.dispose();
    if (project) rmSync(project, { recursive: true, force: true });
    await Promise.all([backend?.close(), registry?.stop()]);
  });

  const up = async () => {
    const result = await timed("up", () => t.stack.up({ onOutput }));
    expect(result.summary.result).toBe("succeeded");
    const value = (key: string) => result.outputs[key]?.value as string;
    return {
      latest: value("latestRevision"),
      live: value("liveRevision"),
      digest: value("liveBundleDigest"),
    };
  };
  let first: string;

  it("previews, then creates, with the minted and the live revision and the lookup's digest as outputs", async () => {
    const preview = await timed("preview", () => t.stack.preview({ onOutput }));
    expect(preview.changeSummary).toEqual({ create: 3 });
    const outputs = await up();
    first = outputs.latest;
    expect(first).toMatch(/^yaml-api-[0-9a-f]{10}$/);
    expect(outputs.live).toBe(first);
    // fn::invoke getServiceRevision of the live revision, once the Service made it known.
    expect(outputs.digest).toBe(digest);
    expect((await backend.client.proxies.get("yaml-edge")).spec.shutdown).toMatchObject({
      drainTimeout: "20s",
    });
    const { deployment } = await t.stack.exportStack();
    const types = (deployment as { resources: { type: string }[] }).resources.map(({ type }) => type);
    expect(types).toEqual(expect.arrayContaining([NATIVE_TYPE_TOKENS.Proxy, NATIVE_TYPE_TOKENS.Service]));
    // The secret config value is in state only encrypted (exportStack decrypts it), and never printed.
    expect(JSON.stringify(deployment)).toContain(API_KEY);
    const stateFiles = readdirSync(path.join(t.stateDir, "backend"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), "utf8"));
    expect(stateFiles.join("\n")).toContain("ciphertext");
    expect(stateFiles.join("\n")).not.toContain(API_KEY);
    expect(printed.join("")).not.toContain(API_KEY);
  });

  it("mints a second revision when the template changes, and it goes live", async () => {
    await t.stack.setConfig("greeting", { value: "bonjour" });
    const outputs = await up();
    expect(outputs.latest).toMatch(/^yaml-api-[0-9a-f]{10}$/);
    expect(outputs.latest).not.toBe(first);
    expect(outputs.live).toBe(outputs.latest);
    expect((await backend.client.serviceRevisions.get(first)).metadata.name).toBe(first);
  });

  it("refreshes without drift", async () => {
    const refresh = await timed("refresh", () => t.stack.refresh({ onOutput, expectNoChanges: true }));
    expect(refresh.summary.result).toBe("succeeded");
  });

  it("destroys everything", async () => {
    const destroy = await timed("destroy", () => t.stack.destroy({ onOutput }));
    expect(destroy.summary.result).toBe("succeeded");
    expect(await backend.client.proxies.listAll()).toEqual([]);
    expect(await backend.client.services.listAll()).toEqual([]);
  });

  // The mistakes do not depend on the server (the type check and the provider's check run before any call):
  // previewed once, on the local one.
  describe.runIf(backendName === "local")("the mistakes a YAML user meets", () => {
    const write = (from: string, to: string) => {
      expect(program).toContain(from);
      writeFileSync(path.join(project, "Pulumi.yaml"), program.replace(from, to));
    };

    it("a misspelt field: the preview names its path, the type, and the fields there are", async () => {
      write("drainTimeout: 20s", "drainTimout: 20s");
      const failure = await timed("preview of a misspelt field", () => failedPreview(t));
      expect(failure).toContain(
        "Property drainTimout does not exist on 'exampledev:core/v1alpha2:ShutdownConfig'",
      );
      expect(failure).toContain("on Pulumi.yaml line");
      expect(failure).toMatch(/spec: Cannot assign[\s\S]*shutdown: Cannot assign/);
      expect(failure).toContain("Existing properties are: drainTimeout, minimumDrainTime");
    });

    it("a value outside an enum: the preview names its path and the allowed values from the schema", async () => {
      write("            env:\n", "            backend:\n              protocol: http3\n            env:\n");
      const failure = await timed("preview of a wrong enum value", () => failedPreview(t));
      expect(failure).toMatch(/backend: Cannot assign[\s\S]*protocol: Cannot assign type 'string' to type/);
      expect(failure).toContain('Allowed values are "http1", "http2", "tcp", "udp"');
    });

    it("minimumDrainTime below drainTimeout: the preview names the path and the rule's fix", async () => {
      write("minimumDrainTime: 45s", "minimumDrainTime: 10s");
      const failure = await timed("preview breaking drain-minimum", () => failedPreview(t));
      expect(failure).toContain(
        `spec.shutdown.minimumDrainTime: "10s" is less than drainTimeout "20s"; set minimumDrainTime to "20s" or more`,
      );
      expect(failure).toContain("exampledev:core/v1alpha2:Proxy resource 'edge' has a problem");
    });

    it("the policy pack judges the YAML stack unchanged: the preview fails with the pack's message", async () => {
      write("minimumDrainTime: 45s", "minimumDrainTime: 10s");
      // The pack, not the provider's check, reports it (as in examples/policy-violations).
      await t.stack.setConfig("exampledev:deferValidationToPolicies", { value: "true" });
      try {
        const failure = await timed("preview --policy-pack", () =>
          failedPreview(t, { policyPacks: [path.join(REPO, "policies")] }),
        );
        expect(failure).toMatch(
          /\[mandatory\] \[severity: high\]\s+drain-minimum\s+\(exampledev:core\/v1alpha2:Proxy: edge\)/,
        );
        expect(failure).toContain("shutdown.minimumDrainTime must not be less than shutdown.drainTimeout");
        expect(failure).toContain(
          "Reference: https://github.com/exampledev/pulumi/blob/main/docs/reference.md#drain-minimum",
        );
      } finally {
        await t.stack.removeConfig("exampledev:deferValidationToPolicies");
      }
    });
  });
});
