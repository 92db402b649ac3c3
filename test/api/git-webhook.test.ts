// `POST /hooks/git`: GitHub-style deliveries behind the server token, matched to Services by repository
// URL (any spelling of it), answered 202 with what matched; a push builds the new commit at once (polling
// is off here), and a malformed delivery is a 400 Status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApi } from "../controller/api";
import { createService } from "../controller/fixtures";
import {
  acceptedMessage,
  acceptedWith,
  builtCommit,
  gitSpec,
  reportTiming,
} from "../controller/git-fixtures";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { call, startTestServer, type TestServer } from "../helpers/server";

const TOKEN = "hook-token-7f2a91";
const HOOK = "/hooks/git";

let registry: Registry;
let server: TestServer;
let api: ServiceApi;
let repo: TestRepo;

beforeAll(async () => {
  registry = await startRegistry();
  server = await startTestServer({ token: TOKEN, git: { pollIntervalMs: 0 } });
  api = new ServiceApi(server);
  repo = TestRepo.create("hook");
  repo.commit({ "index.js": "v1" });
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  repo?.remove();
});

function deliver(event: string | undefined, payload: unknown, authorization = `Bearer ${TOKEN}`) {
  return call(server.url, "POST", HOOK, {
    body: payload,
    headers: { authorization, ...(event !== undefined && { "x-github-event": event }) },
  });
}

describe("POST /hooks/git", () => {
  it("builds the pushed commit of the Services that name the repository, however the URL is spelled", async () => {
    await api.create("hooked", gitSpec(repo, registry, "team/hooked"));
    // The same repository as a plain path with a trailing slash: one mirror, both matched.
    await api.create("hooked-path", gitSpec(`${repo.dir}/`, registry, "team/hooked"));
    await acceptedWith(api, "hooked", "Minted");
    await acceptedWith(api, "hooked-path", "Minted");

    const startedAt = Date.now();
    const next = repo.commit({ "index.js": "v2" });
    const reply = await deliver("push", {
      ref: "refs/heads/main",
      after: next,
      repository: { clone_url: `${repo.url}.git`, html_url: repo.url },
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      event: "push",
      repositories: [repo.url],
      matched: ["hooked", "hooked-path"],
    });
    await builtCommit(api, "hooked", next);
    reportTiming("webhook push", startedAt);
    await builtCommit(api, "hooked-path", next);
  });

  it("keeps answering around a file:// URL naming a host: a 400 delivery, and a Service stored with one", async () => {
    // Admission refuses such a URL now; one stored before (written to the store directly here) must
    // break neither its neighbours' deliveries nor its own sync, which says what to write instead.
    createService(server.store, "hosted", gitSpec("file://127.0.0.1/tmp/x.git", registry, "team/hosted"));
    const refused = await acceptedWith(api, "hosted", "InvalidSource");
    expect(acceptedMessage(refused)).toContain("write file:///tmp/x.git or file://localhost/tmp/x.git");

    const bad = await deliver("push", { repository: { clone_url: "file://127.0.0.1/tmp/x.git" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('repository.clone_url "file://127.0.0.1/tmp/x.git" names the host');
    // GitHub's scp-style ssh_url is skipped when another field names the repository.
    const next = repo.commit({ "index.js": "v3" });
    const good = await deliver("push", {
      repository: { clone_url: repo.url, ssh_url: "git@127.0.0.1:team/app.git" },
    });
    expect(good.status).toBe(202);
    expect(good.body.matched).toEqual(["hooked", "hooked-path"]);
    await builtCommit(api, "hooked", next);
    await api.delete("hosted");
  });

  it("answers 202 with nothing matched for a repository no Service names, and for ping", async () => {
    const other = await deliver("push", { repository: { clone_url: "https://git.example.dev/other.git" } });
    expect(other.status).toBe(202);
    expect(other.body.matched).toEqual([]);
    expect((await deliver("ping", { zen: "Keep it logically awesome." })).body).toEqual({
      event: "ping",
      repositories: [],
      matched: [],
    });
  });

  it("needs the server token", async () => {
    const payload = { repository: { clone_url: repo.url } };
    const reply = await deliver("push", payload, "Bearer wrong");
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ kind: "Status", reason: "Unauthorized" });
    expect(
      (await call(server.url, "POST", HOOK, { body: payload, headers: { "x-github-event": "push" } })).status,
    ).toBe(401);
  });

  it.each([
    [
      "no X-GitHub-Event",
      undefined,
      { repository: { clone_url: "file:///x" } },
      "the X-GitHub-Event header is missing",
    ],
    ["an event it does not handle", "issues", { repository: {} }, 'X-GitHub-Event "issues" is not handled'],
    ["a payload that is not an object", "push", [1, 2], "the payload must be a JSON object"],
    ["no repository", "push", { ref: "refs/heads/main" }, "the payload has no repository object"],
    ["a repository without a URL", "push", { repository: { name: "app" } }, "repository names no URL"],
    [
      "a pull request without a number",
      "pull_request",
      { action: "opened", repository: { clone_url: "file:///x" } },
      "needs number",
    ],
    [
      "a pull request without an action",
      "pull_request",
      { number: 3, repository: { clone_url: "file:///x" } },
      "needs action",
    ],
  ])("answers %s with a 400 Status", async (_case, event, payload, message) => {
    const reply = await deliver(event, payload);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    expect(reply.body.message).toContain(message);
  });

  it("refuses a body that is not JSON", async () => {
    const reply = await call(server.url, "POST", HOOK, {
      body: "payload=%7B%7D",
      contentType: "application/x-www-form-urlencoded",
      headers: { authorization: `Bearer ${TOKEN}`, "x-github-event": "push" },
    });
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ kind: "Status" });
  });
});
