// Exporting a commit's tree when the unpacking side ends first: the build fails with a BuildFailure, and
// nothing escapes as an unhandled EPIPE (which would stop the server; with pipe() instead of pipeline(), this
// file met one in each of three runs).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exportTree } from "../../builder/git/checkout";
import { BuildFailure } from "../../builder/git/failure";
import { TestRepo } from "../helpers/git";

describe("exportTree", () => {
  const repo = TestRepo.create("export");
  // Far more than a pipe holds (64 KiB), so git is still writing when tar is gone.
  const commit = repo.commit({ "blob.bin": randomBytes(8 << 20).toString("base64") });
  const gitDir = join(repo.dir, ".git");
  afterAll(() => repo.remove());

  it("writes the tree into the directory", async () => {
    const dest = mkdtempSync(join(tmpdir(), "exampledev-export-"));
    try {
      await exportTree(gitDir, commit, dest, new AbortController().signal);
      expect(repo.git("hash-object", join(dest, "blob.bin")).trim()).toBe(
        repo.git("rev-parse", `${commit}:blob.bin`).trim(),
      );
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it("fails as a build failure when tar cannot unpack while git is still writing", async () => {
    const missing = join(tmpdir(), `exampledev-export-missing-${process.pid}`);
    const error = await exportTree(gitDir, commit, missing, new AbortController().signal).catch((e) => e);
    expect(error).toBeInstanceOf(BuildFailure);
    expect(String(error.message)).toMatch(/unpacking the archive failed|git archive failed/);
  });

  it("stops both processes when the build is stopped midway", async () => {
    const dest = mkdtempSync(join(tmpdir(), "exampledev-export-"));
    const stop = new AbortController();
    try {
      const exporting = exportTree(gitDir, commit, dest, stop.signal);
      setTimeout(() => stop.abort(new Error("stopped")), 5);
      await expect(exporting).rejects.toThrow("stopped");
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });
});
