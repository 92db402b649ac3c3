import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../server";
import type { Json } from "../helpers/server";

// The machine's kubectl (v1.32, DESIGN.md) against the local server, as a user would run it: discovery,
// explain from the OpenAPI v3 documents, client-side apply (create, then a merge patch), server-side
// apply with field managers, diff, conflicts, --force-conflicts and a refused invalid object.

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function serviceYaml(envValue: string, digest = DIGEST): string {
  return [
    "apiVersion: compute.example.dev/v1alpha1",
    "kind: Service",
    "metadata:",
    "  name: web",
    "  labels:",
    "    team: edge",
    "spec:",
    "  source:",
    "    oci:",
    "      repo: registry.example.dev/team/app",
    `      digest: ${digest}`,
    "  template:",
    "    spec:",
    "      runtime:",
    '        compatibilityDate: "2024-09-01"',
    "      env:",
    "      - name: A",
    `        value: "${envValue}"`,
    "",
  ].join("\n");
}

describe("kubectl against the local server", () => {
  let server: RunningServer;
  let dir: string;

  beforeAll(async () => {
    // No token: kubectl sends a kubeconfig's credentials only over TLS, and the server speaks plain HTTP.
    server = await startServer({ port: 0, storage: "memory", logLevel: "warn" });
    dir = mkdtempSync(join(tmpdir(), "exampledev-kubectl-"));
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: local",
      "  cluster:",
      `    server: ${server.url}`,
      "users:",
      "- name: local",
      "  user: {}",
      "contexts:",
      "- name: local",
      "  context:",
      "    cluster: local",
      "    user: local",
      "current-context: local",
      "",
    ].join("\n");
    writeFileSync(join(dir, "kubeconfig"), kubeconfig);
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** kubectl with the test's kubeconfig and a HOME of its own (discovery and OpenAPI caches). */
  function kubectl(...args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
      execFile(
        "kubectl",
        args,
        {
          env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, "kubeconfig") },
          timeout: 60_000,
        },
        (error, stdout, stderr) => {
          if (error && typeof error.code !== "number") {
            reject(
              new Error(`kubectl could not run (is it installed? DESIGN.md expects v1.32): ${error.message}`),
            );
            return;
          }
          resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
        },
      );
    });
  }

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  async function live(): Promise<Json> {
    const run = await kubectl(
      "get",
      "services.compute.example.dev",
      "web",
      "-o",
      "json",
      "--show-managed-fields",
    );
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  }

  // Of the object itself: the controller's status writes are entries of the status subresource.
  const managers = async () =>
    ((await live()).metadata.managedFields as { manager: string; operation: string; subresource?: string }[])
      .filter(({ subresource }) => subresource === undefined)
      .map(({ manager, operation }) => `${manager}/${operation}`);

  it("lists the three kinds with api-resources", async () => {
    const run = await kubectl("api-resources", "--api-group=compute.example.dev");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/services\s+compute\.example\.dev\/v1alpha1\s+false\s+Service/);
    expect(run.stdout).toMatch(
      /servicerevisions\s+compute\.example\.dev\/v1alpha1\s+false\s+ServiceRevision/,
    );
    const all = await kubectl("api-resources");
    expect(all.stdout).toMatch(/proxies\s+core\.example\.dev\/v1alpha2\s+false\s+Proxy/);
  });

  it("explains a field from the OpenAPI v3 document", async () => {
    const run = await kubectl(
      "explain",
      "services.spec.template",
      "--api-version=compute.example.dev/v1alpha1",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("KIND:       Service");
    expect(run.stdout).toContain("FIELD: template <ServiceTemplateSpec>");
    expect(run.stdout).toMatch(/spec\s+<ServiceConfigSpec> -required-/);
    const field = await kubectl("explain", "proxies.spec.shutdown.drainTimeout");
    expect(field.code, field.stderr).toBe(0);
    expect(field.stdout).toContain("Time to wait before terminating the proxy.");
    expect(field.stdout).toContain('Defaults to "30s".');
    const protocol = await kubectl("explain", "services.spec.template.spec.backend.protocol");
    expect(protocol.stdout).toMatch(/ENUM:\s+http1\s+http2\s+tcp\s+udp/);
    // The older explain reads the Swagger 2.0 document, as a protocol buffer.
    const v2 = await kubectl("explain", "--output=plaintext-openapiv2", "proxies.spec.shutdown");
    expect(v2.code, v2.stderr).toBe(0);
    expect(v2.stdout).toContain("KIND:     Proxy");
    expect(v2.stdout).toMatch(/drainTimeout\s+<string>/);
  });

  it("creates with client-side apply, then patches what changed", async () => {
    const created = await kubectl("apply", "-f", file("web.yaml", serviceYaml("1")));
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("service.compute.example.dev/web created");
    expect(await managers()).toEqual(["kubectl-client-side-apply/Update"]);

    const configured = await kubectl("apply", "-f", file("web.yaml", serviceYaml("2")));
    expect(configured.code, configured.stderr).toBe(0);
    expect(configured.stdout).toContain("service.compute.example.dev/web configured");
    const object = await live();
    expect(object.spec).toMatchObject({ template: { spec: { env: [{ name: "A", value: "2" }] } } });

    const unchanged = await kubectl("apply", "-f", file("web.yaml", serviceYaml("2")));
    expect(unchanged.stdout).toContain("service.compute.example.dev/web unchanged");

    const listed = await kubectl("get", "services.compute.example.dev");
    expect(listed.stdout).toMatch(/^web\s/m);
  });

  it("moves to server-side apply under a field manager of its own", async () => {
    const run = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=a",
      "-f",
      file("web.yaml", serviceYaml("2")),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("service.compute.example.dev/web serverside-applied");
    // kubectl hands the client-side apply's fields over to the new manager, as it does on a real cluster.
    expect(await managers()).toEqual(["a/Apply"]);
  });

  it("diffs server-side: exit 0 without a change, 1 with the change shown", async () => {
    const same = await kubectl(
      "diff",
      "--server-side",
      "--field-manager=a",
      "-f",
      file("web.yaml", serviceYaml("2")),
    );
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe("");

    const changed = await kubectl(
      "diff",
      "--server-side",
      "--field-manager=a",
      "-f",
      file("web-3.yaml", serviceYaml("3")),
    );
    expect(changed.code, changed.stderr).toBe(1);
    expect(changed.stdout).toContain('-        value: "2"');
    expect(changed.stdout).toContain('+        value: "3"');
    // A dry run stores nothing.
    expect((await live()).spec).toMatchObject({ template: { spec: { env: [{ name: "A", value: "2" }] } } });
  });

  it("refuses another manager's change of a field that manager a owns, naming the field", async () => {
    const run = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=b",
      "-f",
      file("web-3.yaml", serviceYaml("3")),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "a": .spec.template.spec.env[name="A"].value',
    );
    expect((await live()).spec).toMatchObject({ template: { spec: { env: [{ name: "A", value: "2" }] } } });
  });

  it("lets --force-conflicts take the field over", async () => {
    const run = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=b",
      "--force-conflicts",
      "-f",
      file("web-3.yaml", serviceYaml("3")),
    );
    expect(run.code, run.stderr).toBe(0);
    const object = await live();
    expect(object.spec).toMatchObject({ template: { spec: { env: [{ name: "A", value: "3" }] } } });
    const entries = object.metadata.managedFields as { manager: string; fieldsV1: Record<string, never> }[];
    const owns = (manager: string) =>
      JSON.stringify(entries.find((entry) => entry.manager === manager)?.fieldsV1 ?? {}).includes(
        '"f:value"',
      );
    expect(owns("b")).toBe(true);
    expect(owns("a")).toBe(false);
  });

  it("refuses an invalid object with a message naming the field", async () => {
    const bad = serviceYaml("3", "sha256:not-a-digest");
    const clientSide = await kubectl("apply", "-f", file("bad.yaml", bad));
    expect(clientSide.code).toBe(1);
    expect(clientSide.stderr).toContain('The Service "web" is invalid');
    expect(clientSide.stderr).toContain("spec.source.oci.digest");
    const serverSide = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=b",
      "-f",
      file("bad.yaml", bad),
    );
    expect(serverSide.code).toBe(1);
    expect(serverSide.stderr).toContain("spec.source.oci.digest");
    const unknown = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=b",
      "-f",
      file("unknown.yaml", serviceYaml("3").replace("  template:", "  colour: blue\n  template:")),
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("spec.colour");
  });
});
