// The SourceReady condition of a git-sourced Service: a repository that cannot be fetched (unreachable,
// refused by --git-allow, a missing branch) shows in status within a poll, with a message to act on, and
// the condition clears once a fetch works.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { ServiceApi } from "./api";
import type { GitStatus } from "./git-fixtures";
import { gitSpec } from "./git-fixtures";

const POLL_MS = 500;

let registry: Registry;
let server: TestServer;
let api: ServiceApi;
const repos: TestRepo[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  server = await startTestServer({ git: { pollIntervalMs: POLL_MS } });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  for (const repo of repos) repo.remove();
});

async function sourceReady(name: string, reason: string) {
  const status = (await api.reason(name, "SourceReady", reason)) as GitStatus;
  return status.conditions.find((condition) => condition.type === "SourceReady");
}

describe("SourceReady", () => {
  it("an unreachable repository: FetchFailed with git's reason", async () => {
    await api.create("unreachable", gitSpec("http://127.0.0.1:9/nothing.git", registry, "team/unreachable"));
    const condition = await sourceReady("unreachable", "FetchFailed");
    expect(condition).toMatchObject({ status: "False" });
    expect(condition?.message).toContain("cannot fetch the repository");
    expect(condition?.message).toContain("127.0.0.1:9");
  });

  it("a URL --git-allow refuses: FetchRefused saying how to allow it", async () => {
    await api.create("refused", gitSpec("https://git.example.dev/team/app.git", registry, "team/refused"));
    const condition = await sourceReady("refused", "FetchRefused");
    expect(condition?.message).toContain("--git-allow");
  });

  it("a missing branch: BranchNotFound, cleared within a poll once the branch is pushed", async () => {
    const repo = TestRepo.create("source-ready");
    repos.push(repo);
    repo.commit({ "index.js": "x" });
    await api.create(
      "branchless",
      gitSpec(repo, registry, "team/branchless", { triggers: { productionBranch: "release" } }),
    );
    const missing = await sourceReady("branchless", "BranchNotFound");
    expect(missing?.message).toContain('branch "release" does not exist');
    expect(missing?.message).toContain("(it has main)");

    // The branch appears with its commit in one step, as a push makes it (a checkout -b, then a commit,
    // would let a poll between them see the branch at main's commit).
    repo.git("checkout", "--quiet", "--detach");
    const pushed = repo.commit({ "index.js": "release" });
    repo.git("branch", "release", pushed);
    const pushedAt = Date.now();
    const fetched = await sourceReady("branchless", "Fetched");
    console.log(`[timing] SourceReady True ${Date.now() - pushedAt} ms after the push (poll ${POLL_MS} ms)`);
    expect(fetched).toMatchObject({ status: "True" });
    expect(fetched?.message).toContain(pushed.slice(0, 12));
    await api.reason("branchless", "Accepted", "Minted");
  });
});
