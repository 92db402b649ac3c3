import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { start, waitUntilHealthy } from "../../kube/processes";

/**
 * The harness's children (kube/processes.ts), with shells for children: each child's output reaches its log
 * whole, whichever of its pipes closes first, and one that exits during a start fails the start with its exit
 * code and the last lines of its log. On a fresh machine kube-apiserver's first start once crashed the harness
 * with ERR_STREAM_WRITE_AFTER_END (its stdout ended the shared file, stderr wrote on) and lost the reason.
 */
describe("a child of the harness", () => {
  let dir: string;
  const dispatcher = new Agent();
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "exampledev-processes-"));
  });
  afterAll(async () => {
    await dispatcher.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("logs whole when one pipe closes long before the other (no write after end)", async () => {
    const log = path.join(dir, "pipes.log");
    // stdout closes first, then stderr writes 2,000 lines.
    const script = 'echo out-first; exec 1>&-; sleep 0.2; for i in $(seq 2000); do echo "err $i" >&2; done';
    const child = start("/bin/sh", ["-c", script], log);
    await expect(child.exited).rejects.toThrow(/exit code 0/);
    const text = await readFile(log, "utf8");
    expect(text).toContain("out-first\n");
    expect(text).toContain("err 2000\n");
    expect(text.split("\n").filter((line) => line.startsWith("err "))).toHaveLength(2000);
  });

  it("fails the start it races, naming its exit code and the last lines of its log", async () => {
    const log = path.join(dir, "dies.log");
    const script = 'for i in $(seq 50); do echo "line $i"; done; echo "fatal: no etcd" >&2; exit 3';
    const child = start("/bin/sh", ["-c", script], log);
    // A port nothing listens on: the start would poll for 60 s, the child's exit ends it at once.
    const began = Date.now();
    const error = await waitUntilHealthy(child, "http://127.0.0.1:9/readyz", dispatcher).catch((e) => e);
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(String(error)).toMatch(/sh exited \(exit code 3\); the last lines of .*dies\.log:/);
    expect(String(error)).toContain("fatal: no etcd");
    expect(String(error)).toContain("line 50");
    expect(String(error)).not.toContain("line 20\n");
  });

  it("names a binary that cannot be started", async () => {
    const child = start(path.join(dir, "no-such-binary"), [], path.join(dir, "missing.log"));
    await expect(child.exited).rejects.toThrow(/no-such-binary/);
  });
});
