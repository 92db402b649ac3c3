// Git state that outlives the server process: after a restart on the same data directory, a closed pull
// request's preview stays gone (GitHub keeps its ref), a preview's idle clock goes on from where it was,
// and nothing already built is built again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { previewName } from "../../controller/git-sources";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { call, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { eventually, ServiceApi } from "./api";
import { acceptedWith, type GitStatus, gitSpec } from "./git-fixtures";

const POLL_MS = 200;
const TTL = "10s";

let dir: string;
let registry: Registry;
let server: TestServer | undefined;
let repo: TestRepo;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "exampledev-git-restart-"));
  registry = await startRegistry();
  repo = TestRepo.create("restart");
  repo.commit({ "index.js": "main" });
  repo.checkout("feature");
  repo.commit({ "index.js": "feature" });
  repo.checkout("main");
  repo.pullRequest(1, repo.head("feature"));
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  repo?.remove();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<ServiceApi> {
  server = await startTestServer({ storage: { dir }, git: { pollIntervalMs: POLL_MS } });
  return new ServiceApi(server);
}

async function exists(name: string): Promise<boolean> {
  return (await server?.call("GET", pathOf("Service", name)))?.status === 200;
}

it("keeps a closed pull request's preview gone, the idle clocks and the builds across a restart", async () => {
  let api = await start();
  const spec = gitSpec(repo, registry, "team/restart", {
    triggers: { onPullRequest: true },
    previews: { enabled: true, ttl: TTL },
  });
  await api.create("app", spec);
  const feature = previewName("app", "feature");
  const pr = previewName("app", "pr-1");
  await acceptedWith(api, "app", "Minted");
  await acceptedWith(api, feature, "Minted");
  await acceptedWith(api, pr, "Minted");

  const closed = await call(server?.url ?? "", "POST", "/hooks/git", {
    body: { action: "closed", number: 1, repository: { clone_url: repo.url } },
    headers: { "x-github-event": "pull_request" },
  });
  expect(closed.status).toBe(202);
  await eventually("the closed pull request's preview to go", async () =>
    (await exists(pr)) ? undefined : true,
  );
  const before = await eventually("the closed pull request in status", async () => {
    const status = (await api.get("app")).status as GitStatus;
    return status.closedPullRequests ? status : undefined;
  });
  expect(before.closedPullRequests).toEqual([1]);
  const featureBefore = (await api.get(feature)).status as GitStatus;

  await server?.close();
  const restartedAt = Date.now();
  api = await start();
  await api.caughtUp();
  // Several polls: the restarted server has fetched the repository, seen the pull request's ref, and synced.
  await new Promise((resolve) => setTimeout(resolve, 5 * POLL_MS));
  await api.caughtUp();

  expect(await exists(pr)).toBe(false);
  const after = (await api.get("app")).status as GitStatus;
  expect(after.closedPullRequests).toEqual([1]);
  // The clocks go on from where they were; nothing already built is built again.
  expect(after.previewHeads).toEqual(before.previewHeads);
  expect(after.lastBuild).toEqual(before.lastBuild);
  expect(((await api.get(feature)).status as GitStatus).lastBuild).toEqual(featureBefore.lastBuild);

  const featureHead = before.previewHeads?.find((head) => head.ref === "refs/heads/feature");
  await eventually("the idle preview to be deleted", async () =>
    (await exists(feature)) ? undefined : true,
  );
  const since = Date.parse(featureHead?.since ?? "");
  console.log(
    `[timing] idle preview deleted ${Date.now() - since} ms after its branch was first seen, ${Date.now() - restartedAt} ms after the restart (ttl ${TTL})`,
  );
});
