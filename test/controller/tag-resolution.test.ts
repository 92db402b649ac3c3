// Tags resolved by the controller against real registries, and how each outcome shows in conditions.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OCICredentialsInput, ServiceSpecInput } from "../../sdk/schema";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { requestToken, startTokenServer, type TokenServer } from "../helpers/token-server";
import { ServiceApi } from "./api";
import type { StatusView } from "./fixtures";

const PATH = "team/app";
const ALICE = { username: "alice", password: "pw-alice-8d41c2" };
const WRONG_PASSWORD = "pw-wrong-3e97aa";
const REFRESH_TOKEN = "rt-alice-51bf07";

/** Every secret handed to the server; none may show in a response, a status or a log line. */
const secrets = new Set([ALICE.password, WRONG_PASSWORD, REFRESH_TOKEN]);

let open: Registry;
let basic: Registry;
let tokenServer: TokenServer;
let tokenRegistry: Registry;
let server: TestServer;
let api: ServiceApi;
const digests: Record<"open" | "basic" | "token", string> = { open: "", basic: "", token: "" };

async function tokenFor(scope: string): Promise<string> {
  const token = await requestToken(tokenServer, ALICE, scope);
  secrets.add(token);
  return token;
}

beforeAll(async () => {
  tokenServer = await startTokenServer({
    users: { [ALICE.username]: ALICE.password },
    refreshTokens: { [REFRESH_TOKEN]: ALICE.username },
  });
  // One at a time, so that afterAll stops every registry that did start when one fails.
  open = await startRegistry();
  basic = await startRegistry({ auth: { type: "htpasswd", users: { [ALICE.username]: ALICE.password } } });
  tokenRegistry = await startRegistry({ auth: { type: "token", tokenServer } });
  const pushToken = await tokenFor(`repository:${PATH}:pull,push`);
  digests.open = await pushArtifact(open, { path: PATH, tag: "v1", content: "open v1" });
  digests.basic = await pushArtifact(basic, { path: PATH, tag: "v1", content: "basic v1", auth: ALICE });
  digests.token = await pushArtifact(tokenRegistry, {
    path: PATH,
    tag: "v1",
    content: "token v1",
    auth: { token: pushToken },
  });
  server = await startTestServer();
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await Promise.all([open?.stop(), basic?.stop(), tokenRegistry?.stop()]);
  await tokenServer?.close();
});

function fromTag(repo: string, credentials?: OCICredentialsInput): ServiceSpecInput {
  return {
    source: { oci: { repo, tag: "v1", ...(credentials && { credentials }) } },
    template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
  };
}

function accepted(status: StatusView) {
  const condition = status.conditions.find((c) => c.type === "Accepted");
  if (!condition) throw new Error("no Accepted condition");
  for (const secret of secrets) expect(condition.message).not.toContain(secret);
  return condition;
}

/** The digest the Service's latest revision runs. */
async function mintedDigest(name: string): Promise<string> {
  const status = await api.reason(name, "Accepted", "Minted");
  const revision = await server.call(
    "GET",
    `/apis/compute.example.dev/v1alpha1/servicerevisions/${status.latestRevision}`,
  );
  for (const secret of secrets) expect(revision.text).not.toContain(secret);
  return revision.body.spec.bundle.digest;
}

describe("tag resolution", () => {
  it("resolves a tag in an open registry", async () => {
    await api.create("open", fromTag(open.repo(PATH)));
    expect(await mintedDigest("open")).toBe(digests.open);
  });

  it("resolves a tag behind HTTP basic auth with a username and password", async () => {
    await api.create("basic", fromTag(basic.repo(PATH), ALICE));
    expect(await mintedDigest("basic")).toBe(digests.basic);
  });

  it("resolves a tag with a bearer access token sent as is", async () => {
    const accessToken = await tokenFor(`repository:${PATH}:pull`);
    const grants = tokenServer.grants.length;
    await api.create("bearer", fromTag(tokenRegistry.repo(PATH), { accessToken }));
    expect(await mintedDigest("bearer")).toBe(digests.token);
    expect(tokenServer.grants).toHaveLength(grants);
  });

  it("exchanges a username and password at the registry's token service", async () => {
    await api.create("exchange", fromTag(tokenRegistry.repo(PATH), ALICE));
    expect(await mintedDigest("exchange")).toBe(digests.token);
    expect(tokenServer.grants.at(-1)).toMatchObject({ grantType: "basic", account: ALICE.username });
  });

  it("exchanges a refresh token through the OAuth2 refresh_token grant", async () => {
    await api.create("refresh", fromTag(tokenRegistry.repo(PATH), { refreshToken: REFRESH_TOKEN }));
    expect(await mintedDigest("refresh")).toBe(digests.token);
    expect(tokenServer.grants.at(-1)).toMatchObject({ grantType: "refresh_token", account: ALICE.username });
  });

  it("reports wrong credentials as BundleResolutionFailed without the password", async () => {
    await api.create(
      "wrong",
      fromTag(basic.repo(PATH), { username: ALICE.username, passwordData: WRONG_PASSWORD }),
    );
    const status = await api.reason("wrong", "Accepted", "BundleResolutionFailed");
    expect(accepted(status)).toMatchObject({ status: "False" });
    expect(accepted(status).message).toContain('rejected the credentials of user "alice"');
    expect(status).not.toHaveProperty("latestRevision");
  });

  it("reports a missing tag as BundleResolutionFailed naming the tag", async () => {
    await api.create("missing", {
      ...fromTag(open.repo(PATH)),
      source: { oci: { repo: open.repo(PATH), tag: "nope" } },
    });
    const status = await api.reason("missing", "Accepted", "BundleResolutionFailed");
    expect(accepted(status).message).toContain(`cannot resolve tag "nope" of ${open.repo(PATH)}`);
  });

  it("reports a credentialsRef on a server without --credentials as CredentialsNotFound", async () => {
    const credentialsRef = { group: "core", name: "registry-login", namespace: "team" };
    await api.create("ref", {
      ...fromTag(open.repo(PATH)),
      source: { oci: { repo: open.repo(PATH), tag: "v1", credentialsRef } },
    });
    const status = await api.reason("ref", "Accepted", "CredentialsNotFound");
    expect(accepted(status).message).toContain(
      'spec.source.oci.credentialsRef names credentials group "core", namespace "team", name "registry-login", but the server was started without --credentials',
    );
  });

  it("keeps the last minted revision while a new tag cannot be resolved", async () => {
    await api.create("keeps", fromTag(open.repo(PATH)));
    const minted = await api.reason("keeps", "Accepted", "Minted");
    await api.patch("keeps", { spec: { source: { oci: { tag: "nope" } } } });
    const failed = await api.reason("keeps", "Accepted", "BundleResolutionFailed");
    expect(failed).toMatchObject({
      latestRevision: minted.latestRevision,
      liveRevision: minted.latestRevision,
      // What the tag last resolved to, and since when, stays in status while the new one fails.
      resolvedBundle: { tag: "v1", digest: digests.open, resolvedAt: minted.resolvedBundle?.resolvedAt },
    });
  });
});

describe("an unreachable registry", () => {
  let front: Server;
  let healthy = false;

  /** Answers 503 while unhealthy, then passes manifest requests on to the open registry. */
  function forward(incoming: IncomingMessage, outgoing: ServerResponse) {
    if (!healthy) {
      outgoing.writeHead(503).end();
      return;
    }
    request(`${open.url}${incoming.url}`, {
      method: incoming.method === "HEAD" ? "HEAD" : "GET",
      headers: { accept: incoming.headers.accept ?? "*/*" },
    })
      .then(async (response) => {
        outgoing.writeHead(response.statusCode, response.headers as Record<string, string>);
        outgoing.end(Buffer.from(await response.body.arrayBuffer()));
      })
      .catch(() => outgoing.writeHead(502).end());
  }

  beforeAll(async () => {
    front = createServer(forward);
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  });

  afterAll(async () => {
    front.closeAllConnections();
    await new Promise<void>((resolve) => front.close(() => resolve()));
  });

  it("reports a registry nothing listens on as BundleResolutionFailed", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    await api.create("unreachable", fromTag(`127.0.0.1:${port}/${PATH}`));
    const status = await api.reason("unreachable", "Accepted", "BundleResolutionFailed");
    expect(accepted(status).message).toContain(`127.0.0.1:${port}/${PATH}`);
  });

  it("shows the failure meanwhile and mints once the registry answers, without another write", async () => {
    const { port } = front.address() as AddressInfo;
    await api.create("flaky", fromTag(`127.0.0.1:${port}/${PATH}`));
    await api.reason("flaky", "Accepted", "BundleResolutionFailed");
    healthy = true;
    expect(await mintedDigest("flaky")).toBe(digests.open);
    expect((await api.get("flaky")).metadata.generation).toBe(1);
  });
});

describe("secrets", () => {
  it("never appear in the server's log", () => {
    const log = server.logs.join("\n");
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(log).toContain("minted revision");
  });
});
