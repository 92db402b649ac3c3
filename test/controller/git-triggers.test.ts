// What makes a git Service build again: a new commit on its branch (polling), but with `triggers.paths`
// only a commit that changes a matching path; and after a restart, nothing already built.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer, useDurableServers } from "../helpers/server";
import { eventually, ServiceApi } from "./api";
import {
  acceptedMessage,
  acceptedWith,
  builtCommit,
  type GitStatus,
  gitSpec,
  reportTiming,
} from "./git-fixtures";

let registry: Registry;
let server: TestServer;
let api: ServiceApi;
const repos: TestRepo[] = [];

function newRepo(prefix: string): TestRepo {
  const repo = TestRepo.create(prefix);
  repos.push(repo);
  return repo;
}

beforeAll(async () => {
  registry = await startRegistry();
  server = await startTestServer({ git: { pollIntervalMs: 200 } });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  for (const repo of repos) repo.remove();
});

describe("triggers.paths", () => {
  it("builds a commit only when it changes a path matching a glob", async () => {
    const repo = newRepo("paths");
    const first = repo.commit({ "app/index.js": "v1", "docs/readme.md": "docs" });
    await api.create(
      "paths",
      gitSpec(repo, registry, "team/paths", { triggers: { paths: ["app/**", "package.json"] } }),
    );
    const built = await acceptedWith(api, "paths", "Minted");
    expect(built.lastBuild?.commit).toBe(first);

    const docsOnly = repo.commit({ "docs/readme.md": "more docs" });
    const skipped = await eventually("the docs-only commit to be skipped", async () => {
      const status = (await api.get("paths")).status as GitStatus;
      return acceptedMessage(status).includes(`commit ${docsOnly.slice(0, 12)} was not built`)
        ? status
        : undefined;
    });
    expect(acceptedMessage(skipped)).toContain("it changes no path matching spec.source.git.triggers.paths");
    expect(skipped.lastBuild).toEqual(built.lastBuild);
    expect(skipped.latestRevision).toBe(built.latestRevision);
    expect(server.logs.some((line) => line.includes("commit skipped") && line.includes(docsOnly))).toBe(true);

    const startedAt = Date.now();
    const appChange = repo.commit({ "app/index.js": "v2" });
    const rebuilt = await builtCommit(api, "paths", appChange);
    reportTiming("commit inside triggers.paths, by polling", startedAt);
    expect(rebuilt.latestRevision).not.toBe(built.latestRevision);
    expect(acceptedMessage(rebuilt)).not.toContain("was not built");
  });
});

describe("restart", () => {
  const durableServer = useDurableServers("git-restart");

  it("takes the last build from status after a restart and does not build that commit again", async () => {
    const repo = newRepo("restart");
    const commit = repo.commit({ "index.js": "v1" });
    const { server: first, dataDir } = await durableServer({ git: { pollIntervalMs: 200 } });
    const firstApi = new ServiceApi(first);
    await firstApi.create("restart", gitSpec(repo, registry, "team/restart"));
    const before = await acceptedWith(firstApi, "restart", "Minted");
    expect(before.lastBuild?.commit).toBe(commit);
    await first.close();

    const { server: second } = await durableServer({
      storage: { dir: dataDir },
      git: { pollIntervalMs: 200 },
    });
    const secondApi = new ServiceApi(second);
    // A few polls: the branch has not moved, so nothing is built.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await second.idle();
    const after = (await secondApi.get("restart")).status as GitStatus;
    expect(after.lastBuild).toEqual(before.lastBuild);
    expect(after.latestRevision).toBe(before.latestRevision);
    expect(second.logs.some((line) => line.includes("build pushed"))).toBe(false);
    // A new commit builds as usual.
    const next = repo.commit({ "index.js": "v2" });
    await builtCommit(secondApi, "restart", next);
  });
});
