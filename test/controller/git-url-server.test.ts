// Git URLs against the server started as a process (`server/main.ts`, `--git-allow <dir>`, polling off),
// through HTTP: a file:// URL naming a host is a 422 at admission and a 400 delivery that leaves later
// deliveries working; `--git-allow` follows symlinks, at admission and again right before each fetch.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { call, manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";
import { ServiceApi } from "./api";
import { acceptedMessage, acceptedWith, builtCommit, gitSpec, manifestOf } from "./git-fixtures";

const URL_FIELD = "spec.source.git.url";

let registry: Registry;
/** <root>/allowed is what the server may fetch; <root>/outside is not. */
let root: string;
let allowed: string;
/** A bare repository inside the allowed directory, fed by pushes from `work`. */
let inner: string;
let work: TestRepo;
let outsideRepo: TestRepo;

beforeAll(async () => {
  registry = await startRegistry();
  root = realpathSync(mkdtempSync(join(tmpdir(), "exampledev-git-urls-")));
  allowed = join(root, "allowed");
  mkdirSync(allowed);
  inner = join(allowed, "inner.git");
  work = TestRepo.create("urls-work");
  work.commit({ "index.js": "inside v1" });
  execFileSync("git", ["clone", "--quiet", "--bare", work.dir, inner]);
  outsideRepo = TestRepo.create("urls-outside");
  outsideRepo.commit({ "index.js": "outside", "secret.txt": "not for the bundle" });
});

afterAll(async () => {
  await registry?.stop();
  for (const repo of [work, outsideRepo]) repo?.remove();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The server as a process allowing only `allowed`, polling off; a ServiceApi over HTTP to it. */
async function startServerProcess() {
  const server = spawnServer(["--git-allow", allowed, "--git-poll-interval", "0"]);
  const url = await server.url;
  const api = new ServiceApi({ call: (method, path, options) => call(url, method, path, options) });
  const deliver = (repository: Record<string, string>) =>
    call(url, "POST", "/hooks/git", { body: { repository }, headers: { "x-github-event": "push" } });
  return { api, deliver, url };
}

/** Commits on `work` and pushes to the inner bare repository; returns the commit. */
function pushInner(content: string): string {
  const commit = work.commit({ "index.js": content });
  work.git("push", "--quiet", inner, "main");
  return commit;
}

describe("file:// URLs with a host", () => {
  it("are refused at admission with what to write instead; localhost and an empty host are accepted", async () => {
    const { api, url } = await startServerProcess();
    const bad = `file://127.0.0.1${inner}`;
    const reply = await call(url, "POST", pathOf("Service"), {
      body: manifest("Service", "hosted", gitSpec(bad, registry, "urls/hosted")),
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ kind: "Status", reason: "Invalid", code: 422 });
    expect(reply.body.details.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: URL_FIELD,
        message: `${URL_FIELD}: "${bad}" names the host "127.0.0.1", but a file:// URL reads this machine's disk: write file://${inner} or file://localhost${inner}, or an http(s):// or git:// URL to reach another host`,
      },
    ]);

    await api.create("empty-host", gitSpec(`file://${inner}`, registry, "urls/empty-host"));
    await api.create("localhost", gitSpec(`file://localhost${inner}`, registry, "urls/localhost"));
    const commit = work.head();
    await builtCommit(api, "empty-host", commit);
    await builtCommit(api, "localhost", commit);
  });

  it("in a webhook delivery are a 400, and the next delivery for a good repository still triggers", async () => {
    const { api, deliver } = await startServerProcess();
    await api.create("hooked", gitSpec(`file://${inner}`, registry, "urls/hooked"));
    await acceptedWith(api, "hooked", "Minted");

    const bad = await deliver({ clone_url: "file://127.0.0.1/tmp/x" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    expect(bad.body.message).toContain("write file:///tmp/x or file://localhost/tmp/x");

    const next = pushInner("inside v2");
    const good = await deliver({ clone_url: `file://${inner}` });
    expect(good.status).toBe(202);
    expect(good.body.matched).toEqual(["hooked"]);
    await builtCommit(api, "hooked", next);
  });
});

describe("--git-allow and symlinks", () => {
  it("refuses a symlink inside the allowed directory that leads outside, before fetching anything", async () => {
    const { api } = await startServerProcess();
    const link = join(allowed, "out.git");
    symlinkSync(outsideRepo.dir, link);
    const cases: [name: string, url: string][] = [
      ["linked", link],
      ["linked-url", `file://${link}`],
    ];
    for (const [name, url] of cases) {
      await api.create(name, gitSpec(url, registry, `urls/${name}`));
      const status = await acceptedWith(api, name, "InvalidSource");
      expect(acceptedMessage(status)).toContain(
        `${URL_FIELD} "${url}" leads to ${realpathSync(outsideRepo.dir)} (symlinks followed), which is not allowed`,
      );
      expect(status.lastBuild).toBeUndefined();
      expect(await api.revisions(name)).toEqual([]);
      expect((await manifestOf(registry, `urls/${name}`, "latest")).status).toBe(404);
    }
  });

  it("refuses at fetch a symlink re-pointed outside after admission, and builds nothing from there", async () => {
    const { api, deliver } = await startServerProcess();
    const link = join(allowed, "swapped.git");
    symlinkSync(inner, link);
    await api.create("swapped", gitSpec(link, registry, "urls/swapped"));
    const built = await builtCommit(api, "swapped", work.head());
    const minted = built.latestRevision;

    rmSync(link);
    symlinkSync(outsideRepo.dir, link);
    const reply = await deliver({ clone_url: `file://${link}` });
    expect(reply.status).toBe(202);
    expect(reply.body.matched).toEqual(["swapped"]);

    const status = await acceptedWith(api, "swapped", "InvalidSource");
    expect(acceptedMessage(status)).toContain(
      `leads to ${realpathSync(outsideRepo.dir)} (symlinks followed)`,
    );
    expect(status.latestRevision).toBe(minted);
    expect(await api.revisions("swapped")).toHaveLength(1);
    const pushed = await manifestOf(registry, "urls/swapped", "latest");
    expect(pushed.manifest.annotations["org.opencontainers.image.revision"]).toBe(built.lastBuild?.commit);
  });
});
