// Issue 47, "any client": a Go program on client-go v0.37.2 (scripts/toolchain/client-go, built once and
// cached) against both backends: a dynamic shared informer with a 1 s resync, server-side apply by two field
// managers (a conflict, then force), and a watch resumed from the bookmark that ends a watch-list's initial
// events.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { clientGoBinary, kubeconfigFor } from "../helpers/tools";

describe.each(BACKENDS)("a client-go program, on the %s server", (backendName) => {
  let backend: Backend;
  let binary: string;
  beforeAll(async () => {
    binary = clientGoBinary();
    backend = await startBackend(backendName);
  }, 600_000);
  afterAll(async () => {
    await backend?.close();
  });

  it("informs with resyncs, applies with a conflict and force, and resumes a watch from a bookmark", async () => {
    const kubeconfig = kubeconfigFor(backend, mkdtempSync(join(tmpdir(), "exampledev-client-go-")));
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) =>
        execFile(binary, [`--kubeconfig=${kubeconfig}`], { timeout: 120_000 }, (error, out, err) =>
          resolve({
            code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
            stdout: out,
            stderr: err,
          }),
        ),
    );
    console.log(`[${backendName}] client-go: ${stdout.trim()}`);
    expect(stderr).toBe("");
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report.informerAdds).toBe(1);
    expect(report.applyConflict).toMatch(/conflict/i);
    expect(report.forcedManagers).toEqual(["client-go-two"]);
    expect(report.resumedFirst).toBe("ADDED cg-resumed");
  });
});
