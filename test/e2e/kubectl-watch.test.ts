import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../server";
import { call, type Json, manifest, pathOf } from "../helpers/server";

// The machine's kubectl (v1.32, DESIGN.md) against the local server for what reads and watches: get with
// the server's Table columns, get -w seeing a change made meanwhile, label, delete --wait (and the
// cascade and grace-period flags), --dry-run=server on create, apply and delete, --field-selector.

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;
const SERVICE_SPEC = {
  source: { oci: { repo: "registry.example.dev/team/app", digest: DIGEST } },
  template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe("kubectl get, watch, label, delete and dry runs against the local server", () => {
  let server: RunningServer;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // No token: kubectl sends a kubeconfig's credentials only over TLS, and the server speaks plain HTTP.
    server = await startServer({ port: 0, storage: "memory", logLevel: "warn", proxyDeletionGraceMs: 1000 });
    dir = mkdtempSync(join(tmpdir(), "exampledev-kubectl-watch-"));
    writeFileSync(
      join(dir, "kubeconfig"),
      [
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
      ].join("\n"),
    );
  });
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const env = () => ({ PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, "kubeconfig") });

  /** kubectl with the test's kubeconfig and a HOME of its own (discovery and OpenAPI caches). */
  function kubectl(...args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
      execFile("kubectl", args, { env: env(), timeout: 60_000 }, (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(
            new Error(`kubectl could not run (is it installed? DESIGN.md expects v1.32): ${error.message}`),
          );
          return;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      });
    });
  }

  /** A long-running kubectl (get -w): its output so far, and a wait for a line matching a pattern. */
  function follow(...args: string[]) {
    const child = spawn("kubectl", args, { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const waitFor = async (pattern: RegExp, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(stdout)) {
        if (child.exitCode !== null) throw new Error(`kubectl ${args.join(" ")} exited: ${stderr}`);
        if (Date.now() > deadline)
          throw new Error(`no ${pattern} in kubectl's output:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    return { child, waitFor, output: () => stdout };
  }

  const api = (
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    body?: unknown,
    contentType?: string,
  ) =>
    call(server.url, method, path, {
      ...(body !== undefined && { body }),
      ...(contentType && { contentType }),
    });

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  const serviceYaml = (name: string) =>
    [
      "apiVersion: compute.example.dev/v1alpha1",
      "kind: Service",
      "metadata:",
      `  name: ${name}`,
      "spec:",
      "  source:",
      "    oci:",
      "      repo: registry.example.dev/team/app",
      `      digest: ${DIGEST}`,
      "  template:",
      "    spec:",
      "      runtime:",
      '        compatibilityDate: "2024-09-01"',
      "",
    ].join("\n");

  /** Every object of every kind, for checks that a command changed nothing. */
  const everything = async () => {
    const lists: Json[] = [];
    for (const kind of ["Proxy", "Service", "ServiceRevision"] as const)
      lists.push((await api("GET", pathOf(kind))).body.items);
    return { version: server.store.resourceVersion(), lists };
  };

  it("gets each kind with the server's columns", async () => {
    expect((await api("POST", pathOf("Service"), manifest("Service", "web", SERVICE_SPEC))).status).toBe(201);
    expect((await api("POST", pathOf("Proxy"), manifest("Proxy", "edge", { provider: "aws" }))).status).toBe(
      201,
    );
    const services = await kubectl("get", "services.compute.example.dev");
    expect(services.code, services.stderr).toBe(0);
    expect(services.stdout).toMatch(/^NAME\s+LATEST\s+LIVE\s+READY\s+ACCEPTED\s+AGE\n/);
    expect(services.stdout).toMatch(/^web\s+web-[0-9a-f]{10}\s+web-[0-9a-f]{10}\s+True\s+True\s+\d+s$/m);
    const wide = await kubectl("get", "services.compute.example.dev", "-o", "wide");
    expect(wide.stdout).toMatch(/^NAME\s+LATEST\s+LIVE\s+READY\s+ACCEPTED\s+AGE\s+REASON\n/);
    expect(wide.stdout).toMatch(/\sReady$/m);
    const revisions = await kubectl("get", "servicerevisions");
    expect(revisions.stdout).toMatch(/^NAME\s+SERVICE\s+DIGEST\s+AGE\n/);
    expect(revisions.stdout).toMatch(/^web-[0-9a-f]{10}\s+web\s+sha256:0123456789ab\s+\d+s$/m);
    const proxies = await kubectl("get", "proxies");
    expect(proxies.stdout).toMatch(/^NAME\s+PROVIDER\s+READY\s+AGE\nedge\s+aws\s+(True|<none>)\s+\d+s\n$/);
    const one = await kubectl("get", "proxy", "edge", "--no-headers");
    expect(one.stdout).toMatch(/^edge\s+aws\s+(True|<none>)\s+\d+s\n$/);
  });

  it("get --field-selector metadata.name selects one object; another field is refused", async () => {
    expect((await api("POST", pathOf("Proxy"), manifest("Proxy", "other", {}))).status).toBe(201);
    const run = await kubectl("get", "proxies", "--field-selector", "metadata.name=edge", "-o", "name");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("proxy.core.example.dev/edge\n");
    const not = await kubectl("get", "proxies", "--field-selector", "metadata.name!=edge", "-o", "name");
    expect(not.stdout).toBe("proxy.core.example.dev/other\n");
    const refused = await kubectl("get", "proxies", "--field-selector", "spec.provider=aws");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("field label not supported: spec.provider");
  });

  it("get -w prints the rows, then each change made meanwhile", async () => {
    const watch = follow("get", "proxies", "-w");
    await watch.waitFor(/^edge\s+aws\s/m);
    expect(
      (await api("POST", pathOf("Proxy"), manifest("Proxy", "watched", { provider: "gcp" }))).status,
    ).toBe(201);
    await watch.waitFor(/^watched\s+gcp\s+(True|<none>)\s+\d+s$/m);
    const events = follow("get", "proxies", "-w", "--output-watch-events", "--watch-only");
    await new Promise((resolve) => setTimeout(resolve, 1000)); // kubectl lists, then watches from there
    const patched = await api(
      "PATCH",
      pathOf("Proxy", "watched"),
      { metadata: { labels: { seen: "yes" } } },
      "application/merge-patch+json",
    );
    expect(patched.status).toBe(200);
    await events.waitFor(/^MODIFIED\s+watched\s+gcp\s/m);
    expect(events.output()).not.toMatch(/^ADDED/m);
    watch.child.kill("SIGTERM");
    events.child.kill("SIGTERM");
  });

  it("labels an object", async () => {
    const run = await kubectl("label", "proxies", "edge", "tier=front");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("proxy.core.example.dev/edge labeled");
    expect((await api("GET", pathOf("Proxy", "edge"))).body.metadata.labels).toEqual({ tier: "front" });
    const selected = await kubectl("get", "proxies", "-l", "tier=front", "-o", "name");
    expect(selected.stdout).toBe("proxy.core.example.dev/edge\n");
  });

  it("--dry-run=server create, apply and delete change nothing", async () => {
    const before = await everything();
    const created = await kubectl("create", "--dry-run=server", "-f", file("dry.yaml", serviceYaml("dry")));
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("service.compute.example.dev/dry created (server dry run)");
    const applied = await kubectl("apply", "--dry-run=server", "-f", file("dry.yaml", serviceYaml("dry")));
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("service.compute.example.dev/dry created (server dry run)");
    const serverSide = await kubectl(
      "apply",
      "--server-side",
      "--dry-run=server",
      "-f",
      file("dry.yaml", serviceYaml("dry")),
    );
    expect(serverSide.code, serverSide.stderr).toBe(0);
    const deleted = await kubectl("delete", "--dry-run=server", "services.compute.example.dev", "web");
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain('service.compute.example.dev "web" deleted (server dry run)');
    const proxy = await kubectl("delete", "--dry-run=server", "proxies", "--all");
    expect(proxy.code, proxy.stderr).toBe(0);
    const labelled = await kubectl("label", "--dry-run=server", "proxies", "edge", "dry=run");
    expect(labelled.code, labelled.stderr).toBe(0);
    expect(await everything()).toEqual(before);
  });

  it("delete waits until a Proxy is gone (its drain); --grace-period=0 --force skips no finalizer", async () => {
    const started = Date.now();
    const run = await kubectl("delete", "proxies", "other");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('proxy.core.example.dev "other" deleted');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect((await api("GET", pathOf("Proxy", "other"))).status).toBe(404);

    // As on kube-apiserver: a forced delete skips no finalizer, so the Proxy still drains before it goes.
    const forcedAt = Date.now();
    const forced = await kubectl("delete", "proxies", "watched", "--grace-period=0", "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(Date.now() - forcedAt).toBeGreaterThanOrEqual(900);
    expect((await api("GET", pathOf("Proxy", "watched"))).status).toBe(404);
  });

  it("delete --cascade=foreground waits for the dependents; --cascade=orphan leaves them", async () => {
    const revisions = (await api("GET", pathOf("ServiceRevision"))).body.items;
    expect(revisions).toHaveLength(1);
    const revision = revisions[0].metadata.name;
    const held = await kubectl(
      "patch",
      "servicerevision",
      revision,
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":["example.dev/hold"]}}',
    );
    expect(held.code, held.stderr).toBe(0);

    const deleting = follow("delete", "services.compute.example.dev", "web", "--cascade=foreground");
    await deleting.waitFor(/deleted/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(deleting.child.exitCode).toBeNull(); // still waiting: the revision holds the Service
    const waiting = (await api("GET", pathOf("Service", "web"))).body;
    expect(waiting.metadata.finalizers).toEqual(["foregroundDeletion"]);
    const released = await kubectl(
      "patch",
      "servicerevision",
      revision,
      "--type=json",
      "-p",
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    );
    expect(released.code, released.stderr).toBe(0);
    const code = await new Promise((resolve) => {
      if (deleting.child.exitCode !== null) resolve(deleting.child.exitCode);
      else deleting.child.on("exit", resolve);
    });
    expect(code).toBe(0);
    expect((await api("GET", pathOf("Service", "web"))).status).toBe(404);
    expect((await api("GET", pathOf("ServiceRevision", revision))).status).toBe(404);

    expect((await api("POST", pathOf("Service"), manifest("Service", "kept", SERVICE_SPEC))).status).toBe(
      201,
    );
    await server.idle();
    const orphaned = await kubectl("delete", "services.compute.example.dev", "kept", "--cascade=orphan");
    expect(orphaned.code, orphaned.stderr).toBe(0);
    const left = await kubectl("get", "servicerevisions", "--no-headers");
    expect(left.stdout).toMatch(/^kept-[0-9a-f]{10}\s+<none>\s/m);
  });

  it("wait --for=delete returns once the object is gone", async () => {
    expect((await api("POST", pathOf("Proxy"), manifest("Proxy", "brief", {}))).status).toBe(201);
    expect((await api("DELETE", pathOf("Proxy", "brief"))).status).toBe(200);
    const run = await kubectl("wait", "--for=delete", "proxy/brief", "--timeout=20s");
    expect(run.code, run.stderr).toBe(0);
    expect((await api("GET", pathOf("Proxy", "brief"))).status).toBe(404);
  });
});
