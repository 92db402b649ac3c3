// Private repositories: `source.git.credentialsRef` names an entry of the server's `--credentials` file,
// and fetches from a real git server on loopback (git http-backend behind HTTP basic or bearer auth) send
// it. The password shows nowhere: not in the process list while a fetch runs, the mirror's config, the
// data directory, a log line, a status or an answer. Missing and refused credentials are named by
// reference, and a rotated password is picked up without a restart.
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OCICredentialsRef } from "../../sdk/schema";
import { TestRepo } from "../helpers/git";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http";
import { type Registry, startRegistry } from "../helpers/registry";
import { pathOf, startTestServer, type TestServer } from "../helpers/server";
import { eventually, ServiceApi } from "./api";
import { acceptedMessage, acceptedWith, builtCommit, type GitStatus, gitSpec } from "./git-fixtures";

const USER = "alice";
const PASSWORD = "pw-git-private-7e41c9";
const WRONG = "pw-git-wrong-0b93aa";
const ROTATED = "pw-git-rotated-5d28f1";
const POLL_MS = 500;
const GROUP = "core.example.dev";
const basicRef = { group: GROUP, namespace: "team", name: "git-basic" };
const bearerRef = { group: GROUP, namespace: "team", name: "git-bearer" };
const wrongRef = { group: GROUP, namespace: "team", name: "git-wrong" };
const rotatingRef = { group: GROUP, namespace: "team", name: "git-rotating" };
const missingRef = { group: GROUP, namespace: "team", name: "git-missing" };

let dir: string;
let dataDir: string;
let credentialsFile: string;
let gitServer: GitHttpServer;
let rotatingServer: GitHttpServer;
let registry: Registry;
let server: TestServer;
let api: ServiceApi;
let repo: TestRepo;
const repos: TestRepo[] = [];

function writeCredentials(rotatingPassword: string): void {
  const entry = (ref: OCICredentialsRef, fields: Record<string, string>) => ({ ...ref, ...fields });
  const text = JSON.stringify({
    credentials: [
      entry(basicRef, { username: USER, passwordData: PASSWORD }),
      entry(bearerRef, { accessToken: PASSWORD }),
      entry(wrongRef, { username: USER, passwordData: WRONG }),
      entry(rotatingRef, { username: USER, passwordData: rotatingPassword }),
    ],
  });
  writeFileSync(credentialsFile, text);
  chmodSync(credentialsFile, 0o600);
}

function newRepo(prefix: string): TestRepo {
  const created = TestRepo.create(prefix);
  repos.push(created);
  created.commit({ "index.js": prefix });
  return created;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "exampledev-git-private-"));
  dataDir = join(dir, "data");
  credentialsFile = join(dir, "credentials.json");
  writeCredentials(PASSWORD);
  gitServer = await startGitHttpServer({ username: USER, password: PASSWORD });
  rotatingServer = await startGitHttpServer({ username: USER, password: PASSWORD });
  registry = await startRegistry();
  server = await startTestServer({
    storage: { dir: dataDir },
    credentialsFile,
    git: { pollIntervalMs: POLL_MS },
  });
  api = new ServiceApi(server);
  repo = newRepo("private");
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  await Promise.all([gitServer?.close(), rotatingServer?.close()]);
  for (const created of repos) created.remove();
  rmSync(dir, { recursive: true, force: true });
});

function privateSpec(name: string, url: string, credentialsRef?: OCICredentialsRef) {
  return gitSpec(url, registry, `team/${name}`, credentialsRef ? { credentialsRef } : {});
}

function conditionOf(status: GitStatus, type: string) {
  return status.conditions.find((condition) => condition.type === type);
}

/** Every command line on the machine, sampled until `until` settles. */
async function sampleProcesses(until: Promise<unknown>): Promise<string[]> {
  const samples: string[] = [];
  let done = false;
  void until.finally(() => {
    done = true;
  });
  while (!done) {
    const { stdout } = await promisify(execFile)("ps", ["-eo", "args"], { maxBuffer: 16 * 1024 * 1024 });
    samples.push(stdout);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await until;
  return samples;
}

/** The text of every file under `root` (binary files too: a secret is searched for as bytes). */
function filesUnder(root: string): { path: string; content: Buffer }[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" }).flatMap((entry) => {
    const path = join(root, entry);
    return statSync(path).isFile() ? [{ path, content: readFileSync(path) }] : [];
  });
}

const SECRET_FORMS = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString("base64")];

describe("source.git.credentialsRef", () => {
  it("fetches with basic credentials from the file; the password shows in no process, file, log, status or answer", async () => {
    gitServer.delayMs = 1_500;
    await api.create("basic", privateSpec("basic", gitServer.url(repo), basicRef));
    const minted = acceptedWith(api, "basic", "Minted");
    const samples = await sampleProcesses(minted);
    gitServer.delayMs = 0;
    const status = await minted;
    expect(status.lastBuild?.commit).toBe(repo.head());
    expect(conditionOf(status, "SourceReady")).toMatchObject({ status: "True", reason: "Fetched" });
    expect(gitServer.authorizations).toContain(`Basic ${SECRET_FORMS[1]}`);

    // The samples caught the fetch under way (its URL is on a command line), and never the password.
    const port = new URL(gitServer.url(repo)).port;
    const fetching = samples.filter((sample) => sample.includes(`127.0.0.1:${port}`));
    console.log(`[ps] ${samples.length} samples of the process list, ${fetching.length} during the fetch`);
    expect(fetching.length).toBeGreaterThan(0);
    for (const sample of samples) for (const secret of SECRET_FORMS) expect(sample).not.toContain(secret);

    const files = filesUnder(dataDir);
    const configs = files.filter(({ path }) => path.endsWith(".git/config"));
    expect(configs.length).toBeGreaterThan(0);
    for (const { path, content } of files) {
      for (const secret of SECRET_FORMS) {
        expect(content.includes(secret), `${path} holds the password`).toBe(false);
      }
    }
    const answer = await server.call("GET", pathOf("Service", "basic"));
    for (const secret of SECRET_FORMS) {
      expect(answer.text).not.toContain(secret);
      expect(server.logs.join("\n")).not.toContain(secret);
    }
  });

  it("sends an accessToken as a bearer token", async () => {
    await api.create("bearer", privateSpec("bearer", gitServer.url(repo), bearerRef));
    const status = await acceptedWith(api, "bearer", "Minted");
    expect(status.lastBuild?.commit).toBe(repo.head());
    expect(gitServer.authorizations).toContain(`Bearer ${PASSWORD}`);
  });

  it("a reference the file does not list: GitCredentialsNotFound naming it", async () => {
    await api.create("missing", privateSpec("missing", gitServer.url(repo), missingRef));
    const status = await acceptedWith(api, "missing", "GitCredentialsNotFound");
    const named = `spec.source.git.credentialsRef names credentials group "${GROUP}", namespace "team", name "git-missing"`;
    expect(acceptedMessage(status)).toContain(named);
    expect(conditionOf(status, "SourceReady")).toMatchObject({
      status: "False",
      reason: "FetchCredentialsNotFound",
    });
  });

  it("refused credentials: GitAuthenticationFailed naming the reference, never the value", async () => {
    await api.create("wrong", privateSpec("wrong", gitServer.url(repo), wrongRef));
    const status = await acceptedWith(api, "wrong", "GitAuthenticationFailed");
    const message = acceptedMessage(status);
    expect(message).toContain('group "core.example.dev", namespace "team", name "git-wrong"');
    expect(message).not.toContain(WRONG);
    const source = conditionOf(status, "SourceReady");
    expect(source).toMatchObject({ status: "False", reason: "FetchAuthenticationFailed" });
    expect(source?.message).not.toContain(WRONG);
    expect(server.logs.join("\n")).not.toContain(WRONG);
    expect(server.logs.join("\n")).not.toContain(Buffer.from(`${USER}:${WRONG}`).toString("base64"));
  });

  it("a private repository without credentialsRef: GitAuthenticationFailed saying it asks for credentials", async () => {
    await api.create("anonymous", privateSpec("anonymous", gitServer.url(repo)));
    const status = await acceptedWith(api, "anonymous", "GitAuthenticationFailed");
    expect(acceptedMessage(status)).toContain("asks for credentials");
    expect(acceptedMessage(status)).toContain("spec.source.git.credentialsRef");
  });

  it("picks up a rotated password from the file without a restart", async () => {
    const rotating = newRepo("rotating");
    await api.create("rotating", privateSpec("rotating", rotatingServer.url(rotating), rotatingRef));
    await acceptedWith(api, "rotating", "Minted");

    // The git server's password changes: the next poll is refused, and SourceReady says so.
    rotatingServer.setPassword(ROTATED);
    const next = rotating.commit({ "index.js": "after the rotation" });
    const rotatedAt = Date.now();
    const refused = await api.reason("rotating", "SourceReady", "FetchAuthenticationFailed");
    console.log(
      `[timing] refused fetch in status ${Date.now() - rotatedAt} ms after the rotation (poll ${POLL_MS} ms)`,
    );
    expect(JSON.stringify(refused)).not.toContain(ROTATED);

    // The file gets the new password: the same server fetches and builds the new commit.
    writeCredentials(ROTATED);
    const status = await builtCommit(api, "rotating", next);
    expect(status.lastBuild?.phase).toBe("Succeeded");
    await eventually("SourceReady to be True again", async () => {
      const current = (await api.get("rotating")).status as GitStatus;
      return conditionOf(current, "SourceReady")?.status === "True" ? true : undefined;
    });
    expect(server.logs.join("\n")).not.toContain(ROTATED);
  });
});
