// `POST /hooks/git` with a webhook secret: GitHub's X-Hub-Signature-256 and GitLab's X-Gitlab-Token are
// checked on the raw body; unsigned or wrongly signed deliveries are 401 and fetch nothing (the private git
// server counts every request); a redelivered id is acted on once; a body over 25 MB is 413 while the
// server keeps answering.
import { createHmac } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApi } from "../controller/api";
import { acceptedWith, builtCommit, gitSpec } from "../controller/git-fixtures";
import { TestRepo } from "../helpers/git";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http";
import { type Registry, startRegistry } from "../helpers/registry";
import { call, startTestServer, type TestServer } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

const TOKEN = "hook-token-c3a7e1";
const SECRET = "hook-secret-9b2d44";
const PASSWORD = "pw-hook-2f8e61";
const HOOK = "/hooks/git";
const credentialsRef = { group: "core.example.dev", namespace: "team", name: "hook-git" };

let dir: string;
let registry: Registry;
let gitServer: GitHttpServer;
let server: TestServer;
let api: ServiceApi;
let repo: TestRepo;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "exampledev-hook-signed-"));
  const credentialsFile = join(dir, "credentials.json");
  writeFileSync(
    credentialsFile,
    JSON.stringify({ credentials: [{ ...credentialsRef, username: "ci", passwordData: PASSWORD }] }),
  );
  chmodSync(credentialsFile, 0o600);
  registry = await startRegistry();
  gitServer = await startGitHttpServer({ username: "ci", password: PASSWORD });
  server = await startTestServer({
    token: TOKEN,
    webhookSecret: SECRET,
    credentialsFile,
    git: { pollIntervalMs: 0 },
  });
  api = new ServiceApi(server);
  repo = TestRepo.create("hook-signed");
  repo.commit({ "index.js": "v1" });
  url = gitServer.url(repo);
  await api.create("signed", gitSpec(url, registry, "team/signed", { credentialsRef }));
  await acceptedWith(api, "signed", "Minted");
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  await gitServer?.close();
  repo?.remove();
  rmSync(dir, { recursive: true, force: true });
});

const signature = (body: string, secret = SECRET) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

function deliver(body: string, headers: Record<string, string>) {
  return call(server.url, "POST", HOOK, { body, headers: { "x-github-event": "push", ...headers } });
}

const pushOf = (after: string) => JSON.stringify({ after, repository: { clone_url: url } });

/** The git server's request count once nothing more arrives for a while (a fetch would show in it). */
async function settledRequests(): Promise<number> {
  for (;;) {
    const before = gitServer.authorizations.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (gitServer.authorizations.length === before) return before;
  }
}

describe("POST /hooks/git with --webhook-secret", () => {
  it("a delivery signed with the secret builds the pushed commit, without the API token", async () => {
    const next = repo.commit({ "index.js": "v2" });
    const body = pushOf(next);
    const reply = await deliver(body, { "x-hub-signature-256": signature(body) });
    expect(reply.status).toBe(202);
    expect(reply.body.matched).toEqual(["signed"]);
    await builtCommit(api, "signed", next);
  });

  it.each([
    ["unsigned, even with the API token", { authorization: `Bearer ${TOKEN}` }, "not signed"],
    ["signed with another secret", { "x-hub-signature-256": "" }, "X-Hub-Signature-256 does not match"],
    ["a GitLab token that is not the secret", { "x-gitlab-token": "guess" }, "X-Gitlab-Token is not"],
  ])("%s: 401, and nothing is fetched", async (_case, headers, message) => {
    const body = pushOf(repo.commit({ "index.js": `unsigned ${Date.now()}` }));
    const signed = { ...headers };
    if ("x-hub-signature-256" in signed) signed["x-hub-signature-256"] = signature(body, "other-secret");
    const before = await settledRequests();
    const reply = await deliver(body, signed);
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ kind: "Status", reason: "Unauthorized" });
    expect(reply.body.message).toContain(message);
    expect(reply.text).not.toContain(SECRET);
    expect(await settledRequests()).toBe(before);
  });

  it("a body changed after signing is 401", async () => {
    const body = pushOf(repo.head());
    const reply = await deliver(body.replace("}", " }"), { "x-hub-signature-256": signature(body) });
    expect(reply.status).toBe(401);
  });

  it("GitLab: a push with the secret as X-Gitlab-Token builds the commit", async () => {
    const next = repo.commit({ "index.js": "from gitlab" });
    const body = JSON.stringify({ object_kind: "push", after: next, project: { git_http_url: url } });
    const reply = await call(server.url, "POST", HOOK, {
      body,
      headers: { "x-gitlab-event": "Push Hook", "x-gitlab-token": SECRET },
    });
    expect(reply.status).toBe(202);
    expect(reply.body.matched).toEqual(["signed"]);
    await builtCommit(api, "signed", next);
  });

  it("a redelivered id is answered 200 and acted on once", async () => {
    const next = repo.commit({ "index.js": "once" });
    const body = pushOf(next);
    const headers = { "x-hub-signature-256": signature(body), "x-github-delivery": "delivery-1" };
    const before = await settledRequests();
    const first = await deliver(body, headers);
    expect(first.status).toBe(202);
    await builtCommit(api, "signed", next);
    const afterFirst = await settledRequests();
    expect(afterFirst).toBeGreaterThan(before);
    const replayed = await deliver(body, headers);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ duplicate: true, delivery: "delivery-1", matched: [] });
    expect(await settledRequests()).toBe(afterFirst);
  });

  it("a 30 MB body is 413, and /healthz answers while it is sent", async () => {
    const chunk = Buffer.alloc(1024 * 1024, "a");
    const healthy: number[] = [];
    const answer = await new Promise<number>((resolve, reject) => {
      // Chunked, no Content-Length: the server must count as it reads.
      const upload = httpRequest(`${server.url}${HOOK}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-github-event": "push" },
      });
      upload.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      upload.on("error", (error) => (healthy.length > 0 ? undefined : reject(error)));
      let sent = 0;
      const send = async () => {
        while (sent < 30 && !upload.destroyed) {
          const started = Date.now();
          const health = await call(server.url, "GET", "/healthz");
          healthy.push(Date.now() - started);
          expect(health.status).toBe(200);
          if (!upload.write(chunk)) await new Promise((resolve) => upload.once("drain", resolve));
          sent++;
        }
        upload.end();
      };
      void send().catch(() => undefined);
    });
    console.log(
      `[timing] /healthz answered ${healthy.length} times during the upload, slowest in ${Math.max(...healthy)} ms`,
    );
    expect(answer).toBe(413);
    expect(healthy.length).toBeGreaterThan(0);
    // With a Content-Length over the cap, refused before it is read.
    const big = await call(server.url, "POST", HOOK, {
      body: `"${"a".repeat(30 * 1024 * 1024)}"`,
      headers: { "x-github-event": "push" },
    });
    expect(big.status).toBe(413);
  });
});

describe("the --webhook-secret flag", () => {
  it("reads the secret from the file it names: signed deliveries pass, unsigned ones are 401", async () => {
    const secretFile = join(dir, "webhook-secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    const spawned = spawnServer(["--token", TOKEN, "--webhook-secret", secretFile]);
    const base = await spawned.url;
    const body = JSON.stringify({ zen: "ping" });
    const ping = { "x-github-event": "ping" };
    const unsigned = await call(base, "POST", HOOK, { body, headers: ping });
    expect(unsigned.status).toBe(401);
    const signed = await call(base, "POST", HOOK, {
      body,
      headers: { ...ping, "x-hub-signature-256": signature(body) },
    });
    expect(signed.status).toBe(202);
    // The rest of the API still needs the token.
    expect((await call(base, "GET", "/apis")).status).toBe(401);
    expect(spawned.stdout() + spawned.stderr()).not.toContain(SECRET);
  });

  it("refuses an empty secret file at start", async () => {
    const empty = join(dir, "empty-secret");
    writeFileSync(empty, "\n");
    const spawned = spawnServer(["--webhook-secret", empty]);
    await expect(spawned.url).rejects.toThrow(/--webhook-secret: .* is empty/);
  });
});
