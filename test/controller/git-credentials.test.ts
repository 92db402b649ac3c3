// A build output that names its registry credentials by `credentialsRef` (the server's `--credentials`
// file): the build pushes with them, the revision keeps the reference, a missing one is named, and no
// credential value shows in a status or a log line. Also the token-service path of the push.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { startTokenServer, type TokenServer } from "../helpers/token-server";
import { ServiceApi } from "./api";
import { acceptedMessage, acceptedWith, gitSpec, manifestOf } from "./git-fixtures";

const ALICE = { username: "alice", password: "pw-git-alice-3d9f0b" };
const REFRESH_TOKEN = "rt-git-alice-84c2e5";
const ref = { group: "core.example.dev", namespace: "team", name: "registry-basic" };
const tokenRef = { group: "core.example.dev", namespace: "team", name: "registry-token" };

let dir: string;
let basic: Registry;
let tokenServer: TokenServer;
let tokenRegistry: Registry;
let server: TestServer;
let api: ServiceApi;
let repo: TestRepo;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "exampledev-git-credentials-"));
  const file = join(dir, "credentials.json");
  writeFileSync(
    file,
    JSON.stringify({
      credentials: [
        { ...ref, username: ALICE.username, passwordData: ALICE.password },
        { ...tokenRef, refreshToken: REFRESH_TOKEN },
      ],
    }),
  );
  chmodSync(file, 0o600);
  tokenServer = await startTokenServer({
    users: { [ALICE.username]: ALICE.password },
    refreshTokens: { [REFRESH_TOKEN]: ALICE.username },
  });
  basic = await startRegistry({ auth: { type: "htpasswd", users: { [ALICE.username]: ALICE.password } } });
  tokenRegistry = await startRegistry({ auth: { type: "token", tokenServer } });
  server = await startTestServer({ credentialsFile: file, git: { pollIntervalMs: 0 } });
  api = new ServiceApi(server);
  repo = TestRepo.create("credentials");
  repo.commit({ "index.js": "x" });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([basic?.stop(), tokenRegistry?.stop()]);
  await tokenServer?.close();
  repo?.remove();
  rmSync(dir, { recursive: true, force: true });
});

function withOutput(name: string, registry: Registry, credentialsRef: typeof ref) {
  return api.create(
    name,
    gitSpec(repo, registry, "team/app", {
      build: { output: { repo: registry.repo("team/app"), credentialsRef } },
    }),
  );
}

describe("build.output.credentialsRef", () => {
  it("pushes with the referenced credentials (basic auth), and the revision keeps the reference", async () => {
    await withOutput("basic", basic, ref);
    const status = await acceptedWith(api, "basic", "Minted");
    const revision = (await api.revisions("basic"))[0];
    expect(revision.spec.bundle).toEqual({
      repo: basic.repo("team/app"),
      digest: status.lastBuild?.digest,
      credentialsRef: ref,
    });
  });

  it("pushes through a token service with a referenced refresh token", async () => {
    await withOutput("token", tokenRegistry, tokenRef);
    const status = await acceptedWith(api, "token", "Minted");
    const anonymous = await manifestOf(tokenRegistry, "team/app", status.lastBuild?.digest ?? "");
    // The registry holds it, and lets no one read it without a token.
    expect(anonymous.status).toBe(401);
  });

  it("names a reference the file lacks", async () => {
    const missing = { ...ref, name: "not-there" };
    await withOutput("missing", basic, missing);
    const status = await acceptedWith(api, "missing", "CredentialsNotFound");
    expect(acceptedMessage(status)).toContain("not-there");
    expect(status.build).toBeUndefined();
  });

  it("shows no credential value anywhere", async () => {
    const everything =
      JSON.stringify(await api.get("basic")) + JSON.stringify(await api.get("token")) + server.logs.join("");
    for (const secret of [ALICE.password, REFRESH_TOKEN]) expect(everything).not.toContain(secret);
  });
});
