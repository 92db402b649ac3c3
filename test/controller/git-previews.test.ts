// Preview Services (API-SPEC rule 7) from real repositories: one per non-production branch and per pull
// request, owned by the parent, built and minted like any Service; deleted when the branch goes, the pull
// request closes, the head idles past ttl, or the parent is deleted; never taking a foreign Service's name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PREVIEW_BRANCH_ANNOTATION,
  PREVIEW_LABELS,
  parentLabel,
  previewName,
} from "../../controller/git-sources";
import { labelValueProblem } from "../../sdk/schema";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { call, type Json, startTestServer, type TestServer } from "../helpers/server";
import { eventually, ServiceApi } from "./api";
import { acceptedWith, type GitStatus, gitSpec, mintedDigest, reportTiming } from "./git-fixtures";

let registry: Registry;
let server: TestServer;
let api: ServiceApi;
const repos: TestRepo[] = [];

function newRepo(prefix: string): TestRepo {
  const repo = TestRepo.create(prefix);
  repos.push(repo);
  repo.commit({ "index.js": "main" });
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

async function exists(name: string): Promise<boolean> {
  return (
    (await call(server.url, "GET", `/apis/compute.example.dev/v1alpha1/services/${name}`)).status === 200
  );
}

async function gone(name: string): Promise<void> {
  await eventually(`Service ${name} to be deleted`, async () => ((await exists(name)) ? undefined : true));
}

async function previewsOf(parent: string): Promise<GitStatus["previews"]> {
  return ((await api.get(parent)).status as GitStatus | undefined)?.previews;
}

function parentSpec(
  repo: TestRepo,
  path: string,
  previews: { enabled: boolean; ttl?: string },
  onPullRequest = false,
) {
  return gitSpec(repo, registry, path, { previews, triggers: { onPullRequest } });
}

describe("previews", () => {
  it("spawns a preview per branch and per pull request, owned by the parent, built and minted", async () => {
    const repo = newRepo("previews");
    const parent = await api.create("web", parentSpec(repo, "team/web", { enabled: true }, true));
    await acceptedWith(api, "web", "Minted");

    const startedAt = Date.now();
    repo.checkout("feature/Login");
    const featureCommit = repo.commit({ "index.js": "feature" });
    repo.checkout("main");
    const name = previewName("web", "feature/Login");
    expect(name).toMatch(/^web-feature-login-[0-9a-f]{8}$/);
    await eventually("the branch preview", async () => ((await exists(name)) ? true : undefined));
    const minted = await acceptedWith(api, name, "Minted");
    reportTiming("new branch -> minted preview revision", startedAt);
    expect(minted.lastBuild).toMatchObject({ branch: "feature/Login", commit: featureCommit });
    expect(await mintedDigest(server, minted)).toBe(minted.lastBuild?.digest);

    const preview: Json = await api.get(name);
    expect(preview.metadata.labels).toEqual({
      [PREVIEW_LABELS.parent]: "web",
      [PREVIEW_LABELS.branch]: "feature-login",
    });
    expect(preview.metadata.annotations).toEqual({ [PREVIEW_BRANCH_ANNOTATION]: "feature/Login" });
    expect(preview.metadata.ownerReferences).toEqual([
      {
        apiVersion: "compute.example.dev/v1alpha1",
        kind: "Service",
        name: "web",
        uid: parent.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(preview.spec.template).toEqual(parent.spec.template);
    expect(preview.spec.source.git.triggers).toEqual({ productionBranch: "feature/Login" });
    expect(preview.spec.source.git).not.toHaveProperty("previews");

    repo.pullRequest(1, featureCommit);
    const pr = previewName("web", "pr-1");
    await eventually("the pull-request preview", async () => ((await exists(pr)) ? true : undefined));
    const prStatus = await acceptedWith(api, pr, "Minted");
    expect(prStatus.lastBuild).toMatchObject({ branch: "refs/pull/1/head", commit: featureCommit });
    expect(await previewsOf("web")).toEqual(
      [
        { name, branch: "feature/Login" },
        { name: pr, branch: "refs/pull/1/head", pullRequest: 1 },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    );

    // A preview deleted by hand while its branch lives is made again.
    const uid = preview.metadata.uid;
    await api.delete(name);
    await eventually("the preview to be made again", async () => {
      const again = await call(server.url, "GET", `/apis/compute.example.dev/v1alpha1/services/${name}`);
      return again.status === 200 && again.body.metadata.uid !== uid ? true : undefined;
    });

    // The parent's template reaches its previews.
    await api.patch("web", { spec: { template: { spec: { env: [{ name: "MODE", value: "two" }] } } } });
    await eventually("the template in the preview", async () => {
      const env = (await api.get(name)).spec.template.spec.env;
      return env?.[0]?.value === "two" ? true : undefined;
    });

    // A closed pull request loses its preview although GitHub keeps its ref; reopened, it comes back.
    const closed = await call(server.url, "POST", "/hooks/git", {
      body: { action: "closed", number: 1, repository: { clone_url: repo.url } },
      headers: { "x-github-event": "pull_request" },
    });
    expect(closed.status).toBe(202);
    expect(closed.body.matched).toContain("web");
    await gone(pr);
    await call(server.url, "POST", "/hooks/git", {
      body: { action: "reopened", number: 1, repository: { clone_url: repo.url } },
      headers: { "x-github-event": "pull_request" },
    });
    await eventually("the reopened pull request's preview", async () =>
      (await exists(pr)) ? true : undefined,
    );

    // A deleted branch loses its preview; deleting the parent deletes the rest, and their revisions.
    repo.deleteBranch("feature/Login");
    await gone(name);
    expect(await api.revisions(name)).toEqual([]);
    await api.delete("web");
    await gone(pr);
    await eventually("the previews' revisions to be collected", async () =>
      (await api.revisions(pr)).length === 0 ? true : undefined,
    );
  });

  it("makes pull-request previews only with triggers.onPullRequest", async () => {
    const repo = newRepo("no-pr");
    repo.pullRequest(7, repo.head());
    repo.checkout("topic");
    repo.commit({ "index.js": "topic" });
    await api.create("nopr", parentSpec(repo, "team/nopr", { enabled: true }));
    const topic = previewName("nopr", "topic");
    await eventually("the branch preview", async () => ((await exists(topic)) ? true : undefined));
    expect(await exists(previewName("nopr", "pr-7"))).toBe(false);
  });

  it("deletes a preview whose branch has not moved for ttl, counted from when the server saw it, not from the commit's date", async () => {
    const repo = newRepo("ttl");
    repo.checkout("old");
    const commit = repo.commit({ "index.js": "old" }, { date: "2020-01-01T00:00:00Z" });
    repo.checkout("main");
    await api.create("ttl", parentSpec(repo, "team/ttl", { enabled: true, ttl: "3s" }));
    const old = previewName("ttl", "old");
    await eventually("the old branch's preview", async () => ((await exists(old)) ? true : undefined));
    const seenAt = Date.now();
    await gone(old);
    console.log(`[timing] idle preview deleted ${Date.now() - seenAt} ms after it was first seen (ttl 3s)`);
    expect(await previewsOf("ttl")).toBeUndefined();
    // The clock stays in status after the preview is gone: a restart does not bring it back.
    const status = (await api.get("ttl")).status;
    expect(status.previewHeads).toEqual([{ ref: "refs/heads/old", commit, since: expect.any(String) }]);
    expect(Date.parse(status.previewHeads[0].since)).toBeGreaterThan(Date.parse("2020-01-02T00:00:00Z"));
  });

  it("never takes over a Service of the preview's name that the parent does not control", async () => {
    const repo = newRepo("foreign");
    const taken = previewName("owner", "taken");
    await api.create(taken, gitSpec(repo, registry, "team/foreign"));
    const before = await api.get(taken);
    repo.checkout("taken");
    repo.commit({ "index.js": "taken" });
    repo.checkout("other");
    repo.commit({ "index.js": "other" });
    await api.create("owner", parentSpec(repo, "team/owner", { enabled: true }));
    const other = previewName("owner", "other");
    await eventually("the other branch's preview", async () => ((await exists(other)) ? true : undefined));
    await eventually("the parent to list its one preview", async () => {
      const previews = await previewsOf("owner");
      return previews?.length === 1 ? previews : undefined;
    });
    const after = await api.get(taken);
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.ownerReferences).toBeUndefined();
    expect(server.logs.some((line) => line.includes(taken) && line.includes("no preview"))).toBe(true);
    // Turning previews off deletes the parent's previews, and only those.
    await api.patch("owner", { spec: { source: { git: { previews: { enabled: false } } } } });
    await gone(other);
    expect(await exists(taken)).toBe(true);
  });

  it("keeps preview names valid for any parent name and branch", () => {
    const longParent = `a${"-b".repeat(120)}c`;
    const name = previewName(longParent, `feature/${"x".repeat(300)}`);
    // Room for the revisions' `-<10 hex>`.
    expect(name.length).toBeLessThanOrEqual(253 - 11);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    expect(previewName("web", "Feature/ÜBER")).toMatch(/^web-feature-ber-[0-9a-f]{8}$/);
    expect(previewName("web", "a")).not.toBe(previewName("web", "A"));
    // The parent label holds a long parent's name as a valid label value, distinct per parent.
    expect(parentLabel("web")).toBe("web");
    expect(labelValueProblem(parentLabel(longParent))).toBeUndefined();
    expect(parentLabel(longParent)).not.toBe(parentLabel(`${longParent}d`));
  });
});
