// Every way a git build fails, each with the condition and message a user can act on, and builds that
// hang or fail without holding up other Services.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { eventually, ServiceApi } from "./api";
import { DIGEST_A } from "./fixtures";
import {
  acceptedMessage,
  acceptedWith,
  type GitStatus,
  gitSpec,
  manifestOf,
  mintedDigest,
} from "./git-fixtures";

const PASSWORD = "pw-build-5c1e7d";

let registry: Registry;
let locked: Registry;
/** Build commands on, a 2 s build timeout. */
let server: TestServer;
let api: ServiceApi;
const repos: TestRepo[] = [];

function newRepo(prefix: string, files: Parameters<TestRepo["commit"]>[0] = { "index.js": "x" }): TestRepo {
  const repo = TestRepo.create(prefix);
  repos.push(repo);
  repo.commit(files);
  return repo;
}

beforeAll(async () => {
  registry = await startRegistry();
  locked = await startRegistry({ auth: { type: "htpasswd", users: { alice: PASSWORD } } });
  server = await startTestServer({ git: { buildCommands: true, buildTimeoutMs: 2_000, pollIntervalMs: 0 } });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await Promise.all([registry?.stop(), locked?.stop()]);
  for (const repo of repos) repo.remove();
});

async function failure(name: string): Promise<{ status: GitStatus; message: string }> {
  const status = await acceptedWith(api, name, "BuildFailed");
  expect(status.lastBuild).toMatchObject({ phase: "Failed" });
  expect(status).not.toHaveProperty("latestRevision");
  expect(acceptedMessage(status)).toContain(status.lastBuild?.message ?? "-");
  return { status, message: status.lastBuild?.message ?? "" };
}

describe("build failures", () => {
  it("an unreachable repository", async () => {
    await api.create("gone", gitSpec("/nonexistent/exampledev/repo.git", registry, "team/gone"));
    const { message } = await failure("gone");
    expect(message).toContain("cannot fetch the repository");
    expect(message).toContain("spec.source.git.url");
    await api.create("refused", gitSpec("http://127.0.0.1:9/team/app.git", registry, "team/refused"));
    expect((await failure("refused")).message).toContain("cannot fetch the repository");
  });

  it("a branch the repository does not have", async () => {
    const repo = newRepo("branch");
    await api.create(
      "branch",
      gitSpec(repo, registry, "team/branch", { triggers: { productionBranch: "release" } }),
    );
    const { message } = await failure("branch");
    expect(message).toBe(
      `branch "release" does not exist in ${repo.url} (it has main); push it, or set spec.source.git.triggers.productionBranch to an existing branch`,
    );
  });

  it("a rootDir that climbs out of the repository, or is a symlink", async () => {
    const repo = newRepo("escape", { "app/index.js": "x", linked: { symlink: "/etc" } });
    await api.create("escape", gitSpec(repo, registry, "team/escape", { build: { rootDir: "app/../.." } }));
    expect((await failure("escape")).message).toContain(
      'spec.source.git.build.rootDir "app/../.." leads outside the repository; nothing outside it is packaged',
    );
    await api.create("linked", gitSpec(repo, registry, "team/linked", { build: { rootDir: "linked" } }));
    expect((await failure("linked")).message).toContain("linked is a symlink");
    await api.create("missing-dir", gitSpec(repo, registry, "team/missing", { build: { rootDir: "src" } }));
    expect((await failure("missing-dir")).message).toContain("has no src");
  });

  it("a symlink that leads outside the packaged directory", async () => {
    const repo = newRepo("symlink", {
      "app/index.js": "x",
      "app/secret": { symlink: "../../../etc/passwd" },
    });
    await api.create("symlink", gitSpec(repo, registry, "team/symlink", { build: { rootDir: "app" } }));
    const { message } = await failure("symlink");
    expect(message).toContain(
      'the symlink secret points to "../../../etc/passwd", outside the directory being packaged',
    );
    // Inside the repository but outside rootDir is outside too: the artifact must stand on its own.
    const sibling = newRepo("sibling", {
      "app/index.js": "x",
      "shared/lib.js": "y",
      "app/lib.js": { symlink: "../shared/lib.js" },
    });
    await api.create("sibling", gitSpec(sibling, registry, "team/sibling", { build: { rootDir: "app" } }));
    expect((await failure("sibling")).message).toContain("the symlink lib.js points to");
  });

  it("a build command that fails, with the tail of its output", async () => {
    const repo = newRepo("command");
    await api.create(
      "command",
      gitSpec(repo, registry, "team/command", {
        build: { command: ["sh", "-c", "echo compiling; echo 'error: missing semicolon' >&2; exit 3"] },
      }),
    );
    const { message } = await failure("command");
    expect(message).toContain(
      "failed (exit code 3); its output ends with: compiling\nerror: missing semicolon",
    );
  });

  it("a build command runs with build.env, and what it writes is packaged", async () => {
    const repo = newRepo("command-ok");
    await api.create(
      "command-ok",
      gitSpec(repo, registry, "team/command-ok", {
        build: {
          command: [
            "sh",
            "-c",
            'echo "$GREETING" > built.txt; env | grep -c EXAMPLEDEV > /dev/null && exit 9 || true',
          ],
          env: [{ name: "GREETING", value: "hello" }],
        },
      }),
    );
    const status = await acceptedWith(api, "command-ok", "Minted");
    const pushed = await manifestOf(registry, "team/command-ok", status.lastBuild?.digest ?? "");
    const layer = await fetch(`${registry.url}/v2/team/command-ok/blobs/${pushed.manifest.layers[0].digest}`);
    expect(gunzipSync(Buffer.from(await layer.arrayBuffer())).toString("latin1")).toContain("hello\n");
  });

  it("a build that outlives --build-timeout is stopped, and holds up no other Service", async () => {
    const repo = newRepo("hang");
    const startedAt = Date.now();
    await api.create(
      "hang",
      gitSpec(repo, registry, "team/hang", { build: { command: ["sh", "-c", "sleep 60 & sleep 60"] } }),
    );
    await eventually("the hanging build to run", async () => {
      const status = (await api.get("hang")).status as GitStatus | undefined;
      return status?.build?.phase === "Running" ? status : undefined;
    });
    // While it hangs, another git Service builds (a second slot) and an OCI Service mints (the worker).
    const other = newRepo("beside");
    await api.create("beside", gitSpec(other, registry, "team/beside"));
    await api.create("oci-beside", {
      source: { oci: { repo: registry.repo("team/any"), digest: DIGEST_A } },
      template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
    });
    await acceptedWith(api, "oci-beside", "Minted");
    const beside = await acceptedWith(api, "beside", "Minted");
    expect(await mintedDigest(server, beside)).toBe(beside.lastBuild?.digest);
    expect(((await api.get("hang")).status as GitStatus).build?.phase).toBe("Running");
    const { message } = await failure("hang");
    console.log(`[timing] hanging build stopped after ${Date.now() - startedAt} ms (--build-timeout 2s)`);
    expect(message).toBe(
      "the build took longer than the server's --build-timeout of 2000 ms and was stopped; make the build faster, or start the server with a longer --build-timeout",
    );
  });

  it("waits for a build slot (Pending, with how many builds are ahead) while the slots are taken, then builds", async () => {
    const single = await startTestServer({
      git: { buildCommands: true, buildTimeoutMs: 2_500, pollIntervalMs: 0, concurrency: 1 },
    });
    try {
      const singleApi = new ServiceApi(single);
      const slow = (name: string) =>
        singleApi.create(
          name,
          gitSpec(newRepo(name), registry, `team/${name}`, { build: { command: ["sleep", "30"] } }),
        );
      const build = async (name: string) =>
        ((await singleApi.get(name)).status as GitStatus | undefined)?.build;
      await slow("slow");
      await eventually("the slow build to run", async () =>
        (await build("slow"))?.phase === "Running" ? true : undefined,
      );
      // Two more queue behind it: a slow one, then a quick one.
      await slow("slow-next");
      await eventually("slow-next to queue", async () =>
        (await build("slow-next"))?.phase === "Pending" ? true : undefined,
      );
      await singleApi.create("queued", gitSpec(newRepo("queued"), registry, "team/queued"));
      const pending = await acceptedWith(singleApi, "queued", "AwaitingBuild");
      expect(pending.build).toEqual({ phase: "Pending", branch: "main", ahead: 1 });
      expect(await build("slow-next")).toEqual({ phase: "Pending", branch: "main", ahead: 0 });
      expect(acceptedMessage(pending)).toContain("(build pending)");
      // Level-triggered: while the queue stands still, nothing is written.
      const version = (await singleApi.get("queued")).metadata.resourceVersion;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await singleApi.get("queued")).metadata.resourceVersion).toBe(version);
      // The first build times out: slow-next runs (its place is gone), queued is next in line.
      await acceptedWith(singleApi, "slow", "BuildFailed");
      const moved = await eventually("queued to move up", async () => {
        const now = await build("queued");
        return now?.ahead === 0 ? now : undefined;
      });
      expect(moved).toEqual({ phase: "Pending", branch: "main", ahead: 0 });
      expect(await build("slow-next")).not.toHaveProperty("ahead");
      await acceptedWith(singleApi, "slow-next", "BuildFailed");
      const minted = await acceptedWith(singleApi, "queued", "Minted");
      expect(minted.lastBuild).not.toHaveProperty("ahead");
    } finally {
      await single.close();
    }
  });

  it("a registry that refuses the push, without a secret in any message", async () => {
    const repo = newRepo("push");
    await api.create(
      "push",
      gitSpec(repo, locked, "team/push", {
        build: {
          output: {
            repo: locked.repo("team/push"),
            credentials: { username: "alice", password: `${PASSWORD}-wrong` },
          },
        },
      }),
    );
    const { message } = await failure("push");
    expect(message).toContain(`cannot push to ${locked.repo("team/push")} (spec.source.git.build.output)`);
    expect(message).toContain('rejected the credentials of user "alice"');
    const everything = JSON.stringify((await api.get("push")).status) + server.logs.join("");
    expect(everything).not.toContain(PASSWORD);
    await api.patch("push", {
      spec: {
        source: { git: { build: { output: { credentials: { passwordData: PASSWORD } } } } },
      },
    });
    // New credentials build again.
    await acceptedWith(api, "push", "Minted");
  });

  it("build.command without --build-commands: a condition saying how to enable it", async () => {
    const plain = await startTestServer({ git: { pollIntervalMs: 0 } });
    try {
      const repo = newRepo("disabled");
      const plainApi = new ServiceApi(plain);
      await plainApi.create(
        "disabled",
        gitSpec(repo, registry, "team/disabled", { build: { command: ["make"] } }),
      );
      const status = await acceptedWith(plainApi, "disabled", "BuildCommandsDisabled");
      expect(acceptedMessage(status)).toContain(
        "start the server with --build-commands, or remove build.command",
      );
      expect(status.build).toBeUndefined();
      expect(status.lastBuild).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it("a URL outside --git-allow, and a mirror over --git-max-clone-size", async () => {
    const repo = newRepo("allow");
    const strict = await startTestServer({
      git: { allow: ["https://git.example.dev/team/"], maxCloneBytes: 1024, pollIntervalMs: 0 },
    });
    try {
      const strictApi = new ServiceApi(strict);
      await strictApi.create("local", gitSpec(repo, registry, "team/allow"));
      const refused = await acceptedWith(strictApi, "local", "InvalidSource");
      expect(acceptedMessage(refused)).toBe(
        `spec.source.git.url "${repo.url}" is not allowed: the server allows only URLs starting with https://git.example.dev/team/ (--git-allow); start the server with --git-allow naming a prefix of this URL to fetch it`,
      );
      await strictApi.create(
        "lookalike",
        gitSpec("https://git.example.dev/team-evil/app.git", registry, "team/allow"),
      );
      await acceptedWith(strictApi, "lookalike", "InvalidSource");
    } finally {
      await strict.close();
    }
    const small = await startTestServer({ git: { maxCloneBytes: 1024, pollIntervalMs: 0 } });
    try {
      const smallApi = new ServiceApi(small);
      await smallApi.create("big", gitSpec(repo, registry, "team/big"));
      const status = await acceptedWith(smallApi, "big", "BuildFailed");
      expect(status.lastBuild?.message).toMatch(
        /takes \d+ KiB on disk, more than the server's limit of 1 KiB; .*--git-max-clone-size/,
      );
    } finally {
      await small.close();
    }
  });
});
