// credentialsRef against real registries: the server reads the referenced credentials from the file it
// was given (--credentials), reports a missing reference by name, picks up a fixed file without a
// restart, and never shows a credential value in a status, a response or a log line.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCredentialsFile } from "../../builder/credentials";
import type { OCICredentialsRefInput, ServiceSpecInput } from "../../sdk/schema";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { pathOf, startTestServer, type TestServer } from "../helpers/server";
import { requestToken, startTokenServer, type TokenServer } from "../helpers/token-server";
import { ServiceApi } from "./api";
import type { StatusView } from "./fixtures";

const PATH = "team/app";
const ALICE = { username: "alice", password: "pw-alice-c7e1d94b" };
const WRONG_PASSWORD = "pw-wrong-60af3e2d";
const REFRESH_TOKEN = "rt-alice-9b2e71f0";
const BROKEN_SECRET = "pw-broken-1f4a8c3e";
/** Every credential value written to a file; none may show anywhere the server answers or logs. */
const SECRETS = [ALICE.password, WRONG_PASSWORD, REFRESH_TOKEN, BROKEN_SECRET];

const GROUP = "core.example.dev";
const basicRef = { group: GROUP, namespace: "team", name: "registry-basic" };
const tokenRef = { group: GROUP, namespace: "team", name: "registry-token" };
const wrongRef = { group: GROUP, namespace: "team", name: "registry-wrong" };
const laterRef = { group: GROUP, namespace: "team", name: "added-later" };

let dir: string;
let file: string;
let basic: Registry;
let tokenServer: TokenServer;
let tokenRegistry: Registry;
let server: TestServer;
let api: ServiceApi;
const digests = { basic: "", token: "" };

type Entry = OCICredentialsRefInput & Record<string, string>;

/** The credentials file as a user writes it: YAML, readable by its owner only. */
function writeCredentials(entries: Entry[]): void {
  const yaml = entries
    .map((entry) =>
      Object.entries(entry)
        .map(([key, value], index) => `${index === 0 ? "  - " : "    "}${key}: ${JSON.stringify(value)}`)
        .join("\n"),
    )
    .join("\n");
  writeFileSync(file, `# registry credentials for credentialsRef\ncredentials:\n${yaml}\n`);
  chmodSync(file, 0o600);
}

const BASE_ENTRIES: Entry[] = [
  { ...basicRef, username: ALICE.username, passwordData: ALICE.password },
  { ...tokenRef, refreshToken: REFRESH_TOKEN },
  { ...wrongRef, username: ALICE.username, passwordData: WRONG_PASSWORD },
];

function fromTag(repo: string, credentialsRef: OCICredentialsRefInput, digest?: string): ServiceSpecInput {
  return {
    source: { oci: { repo, ...(digest ? { digest } : { tag: "v1" }), credentialsRef } },
    template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
  };
}

function acceptedMessage(status: StatusView): string {
  const condition = status.conditions.find((c) => c.type === "Accepted");
  if (!condition) throw new Error("no Accepted condition");
  return condition.message;
}

async function mintedDigest(name: string): Promise<string> {
  const status = await api.reason(name, "Accepted", "Minted");
  return (await api.revision(status.latestRevision as string)).spec.bundle.digest;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "exampledev-credentials-"));
  file = join(dir, "credentials.yaml");
  writeCredentials(BASE_ENTRIES);
  tokenServer = await startTokenServer({
    users: { [ALICE.username]: ALICE.password },
    refreshTokens: { [REFRESH_TOKEN]: ALICE.username },
  });
  basic = await startRegistry({ auth: { type: "htpasswd", users: { [ALICE.username]: ALICE.password } } });
  tokenRegistry = await startRegistry({ auth: { type: "token", tokenServer } });
  digests.basic = await pushArtifact(basic, { path: PATH, tag: "v1", content: "basic v1", auth: ALICE });
  const pushToken = await requestToken(tokenServer, ALICE, `repository:${PATH}:pull,push`);
  SECRETS.push(pushToken);
  digests.token = await pushArtifact(tokenRegistry, {
    path: PATH,
    tag: "v1",
    content: "token v1",
    auth: { token: pushToken },
  });
  server = await startTestServer({ credentialsFile: file, tagPollIntervalMs: 0 });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await Promise.all([basic?.stop(), tokenRegistry?.stop()]);
  await tokenServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("credentialsRef", () => {
  it("resolves a tag behind HTTP basic auth with the referenced username and password", async () => {
    await api.create("basic", fromTag(basic.repo(PATH), basicRef));
    expect(await mintedDigest("basic")).toBe(digests.basic);
  });

  it("exchanges a referenced refresh token at the registry's token service", async () => {
    await api.create("token", fromTag(tokenRegistry.repo(PATH), tokenRef));
    expect(await mintedDigest("token")).toBe(digests.token);
    expect(tokenServer.grants.at(-1)).toMatchObject({ grantType: "refresh_token", account: ALICE.username });
  });

  it("keeps the reference, never the credentials, in the minted revision", async () => {
    const status = await api.reason("basic", "Accepted", "Minted");
    const revision = await api.revision(status.latestRevision as string);
    expect(revision.spec.bundle).toEqual({
      repo: basic.repo(PATH),
      digest: digests.basic,
      credentialsRef: basicRef,
    });
  });

  it("reports referenced credentials the registry rejects, naming the user", async () => {
    await api.create("wrong", fromTag(basic.repo(PATH), wrongRef));
    const status = await api.reason("wrong", "Accepted", "BundleResolutionFailed");
    expect(acceptedMessage(status)).toContain('rejected the credentials of user "alice"');
  });

  it("reports a missing reference as CredentialsNotFound naming it and the file, and mints once it is added", async () => {
    await api.create("later", fromTag(basic.repo(PATH), laterRef));
    const status = await api.reason("later", "Accepted", "CredentialsNotFound");
    expect(acceptedMessage(status)).toBe(
      `spec.source.oci.credentialsRef names credentials group "${GROUP}", namespace "team", name "added-later", which the credentials file ${file} (--credentials) does not list; add an entry with this group, namespace and name and the registry credentials (username and passwordData, accessToken or refreshToken)`,
    );
    expect(status).not.toHaveProperty("latestRevision");
    // Neither the Service nor the server is touched: the file change alone brings the revision.
    const started = Date.now();
    writeCredentials([
      ...BASE_ENTRIES,
      { ...laterRef, username: ALICE.username, passwordData: ALICE.password },
    ]);
    expect(await mintedDigest("later")).toBe(digests.basic);
    console.log(`credentials file fixed -> revision minted: ${Date.now() - started} ms`);
  });

  it("checks the reference of a digest-pinned bundle too, without asking the registry", async () => {
    await api.create("pinned", fromTag(basic.repo(PATH), basicRef, digests.basic));
    expect(await mintedDigest("pinned")).toBe(digests.basic);
    const missing = { ...laterRef, name: "never-added" };
    await api.create("pinned-missing", fromTag(basic.repo(PATH), missing, digests.basic));
    const status = await api.reason("pinned-missing", "Accepted", "CredentialsNotFound");
    expect(acceptedMessage(status)).toContain('name "never-added"');
  });

  it("reports a file that became unusable by position, quoting nothing from it", async () => {
    writeFileSync(
      file,
      `credentials:\n  - group: ${GROUP}\n    passwordData: "${BROKEN_SECRET}\n  name: [\n`,
    );
    await api.create("broken", fromTag(basic.repo(PATH), { ...laterRef, name: "broken" }));
    const status = await api.reason("broken", "Accepted", "CredentialsNotFound");
    expect(acceptedMessage(status)).toMatch(
      /cannot be used: it is not valid YAML or JSON at line \d+, column \d+$/,
    );
    writeCredentials(BASE_ENTRIES);
  });

  it("shows no credential value in any status, response or log line", async () => {
    const responses = [
      await server.call("GET", pathOf("Service")),
      await server.call("GET", pathOf("ServiceRevision")),
    ];
    const seen = [...responses.map((reply) => reply.text), ...server.logs].join("\n");
    expect(seen).toContain("CredentialsNotFound");
    for (const secret of SECRETS) expect(seen).not.toContain(secret);
  });
});

describe("the credentials file", () => {
  it("lists entries by group, namespace and name", () => {
    const parsed = parseCredentialsFile(
      JSON.stringify({ credentials: [{ ...basicRef, username: "alice", passwordData: "x" }] }),
    );
    expect(parsed).toEqual({
      ok: true,
      entries: new Map([[`${GROUP}/team/registry-basic`, { username: "alice", passwordData: "x" }]]),
    });
  });

  it.each([
    [
      "an unknown field",
      { credentials: [{ ...basicRef, pasword: BROKEN_SECRET }] },
      'credentials[0]: Unrecognized key: "pasword"',
    ],
    [
      "a missing name",
      { credentials: [{ group: GROUP, namespace: "team", passwordData: BROKEN_SECRET }] },
      "credentials[0].name:",
    ],
    [
      "a value that is not a string",
      { credentials: [{ ...basicRef, passwordData: 42 }] },
      "credentials[0].passwordData:",
    ],
    ["no credentials list", [{ ...basicRef, passwordData: BROKEN_SECRET }], "the top level:"],
    [
      "a repeated reference",
      {
        credentials: [
          { ...basicRef, passwordData: BROKEN_SECRET },
          { ...basicRef, passwordData: "y" },
        ],
      },
      `credentials[1] repeats group "${GROUP}", namespace "team", name "registry-basic"; keep one entry per reference`,
    ],
  ])("refuses %s, naming where without quoting values", (_, document, expected) => {
    const parsed = parseCredentialsFile(JSON.stringify(document));
    if (parsed.ok) throw new Error("expected the file to be refused");
    expect(parsed.problem).toContain(expected);
    expect(parsed.problem).not.toContain(BROKEN_SECRET);
  });

  it("fails the server's start when the file cannot be used, without quoting it", async () => {
    const broken = join(dir, "broken.json");
    writeFileSync(broken, `{"credentials": [{"passwordData": "${BROKEN_SECRET}" "name": 1}]}`);
    const start = startTestServer({ credentialsFile: broken });
    await expect(start).rejects.toThrow(
      /^--credentials .*broken\.json: it is not valid YAML or JSON at line 1/,
    );
    await start.catch((error: Error) => expect(error.message).not.toContain(BROKEN_SECRET));
  });
});
