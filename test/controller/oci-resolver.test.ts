import { createServer } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopbackHost, registryBaseUrl, resolveBundle } from "../../builder/oci";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { requestToken, startTokenServer, type TokenServer } from "../helpers/token-server";
import {
  ALICE,
  close,
  closedPort,
  expectDigest,
  expectFailure,
  FORGED_ACCESS_TOKEN,
  failureMessages,
  listen,
  PATH,
  REFRESH_TOKEN,
  recordingSleep,
  secrets,
  startFront,
  WRONG_PASSWORD,
  WRONG_REFRESH_TOKEN,
} from "./oci-resolver-helpers";

describe("resolveBundle", () => {
  let open: Registry;
  let basic: Registry;
  let tokenServer: TokenServer;
  let tokenRegistry: Registry;
  /** Manifest digests the registries reported on push. */
  let digests: { open: string; latest: string; basic: string; token: string };

  async function tokenFor(scope: string): Promise<string> {
    const token = await requestToken(tokenServer, ALICE, scope);
    secrets.add(token);
    return token;
  }

  beforeAll(async () => {
    tokenServer = await startTokenServer({
      users: { [ALICE.username]: ALICE.password },
      refreshTokens: { [REFRESH_TOKEN]: ALICE.username },
      allowAnonymous: true,
    });
    // One at a time, so that afterAll stops every registry that did start when one fails.
    open = await startRegistry();
    basic = await startRegistry({ auth: { type: "htpasswd", users: { [ALICE.username]: ALICE.password } } });
    tokenRegistry = await startRegistry({ auth: { type: "token", tokenServer } });
    const pushToken = await tokenFor(`repository:${PATH}:pull,push`);
    const [openV1, latest, basicV1, tokenV1] = await Promise.all([
      pushArtifact(open, { path: PATH, tag: "v1", content: "open v1" }),
      pushArtifact(open, { path: PATH, tag: "latest", content: "open latest" }),
      pushArtifact(basic, { path: PATH, tag: "v1", content: "basic v1", auth: ALICE }),
      pushArtifact(tokenRegistry, { path: PATH, tag: "v1", content: "token v1", auth: { token: pushToken } }),
    ]);
    digests = { open: openV1, latest, basic: basicV1, token: tokenV1 };
  });

  afterAll(async () => {
    await Promise.all([open?.stop(), basic?.stop(), tokenRegistry?.stop()]);
    await tokenServer?.close();
  });

  describe("without a registry", () => {
    it("returns a set digest as is, without contacting the registry", async () => {
      const digest = `sha256:${"ab".repeat(32)}`;
      const repo = `${await closedPort()}/${PATH}`;
      expectDigest(await resolveBundle({ repo, tag: "v1", digest }), digest);
    });

    it("reports a credentialsRef without a credentials file as CredentialsNotFound, digest or not", async () => {
      const credentialsRef = { group: "core", name: "registry-login", namespace: "team" };
      const digest = `sha256:${"ab".repeat(32)}`;
      for (const ref of [
        { repo: open.repo(PATH), credentialsRef },
        { repo: open.repo(PATH), digest, credentialsRef },
      ]) {
        const message = expectFailure(await resolveBundle(ref), "CredentialsNotFound", false);
        expect(message).toContain("spec.source.oci.credentialsRef");
        expect(message).toContain("--credentials");
        expect(message).toContain("spec.source.oci.credentials");
      }
    });

    it("refuses a repo without a path, naming the field and the expected form", async () => {
      const result = await resolveBundle({ repo: open.host }, { fieldPath: "spec.source.git.build.output" });
      const message = expectFailure(result, "InvalidSource", false);
      expect(message).toContain("spec.source.git.build.output.repo");
      expect(message).toContain("<registry_host>/<path>");
    });
  });

  describe("scheme", () => {
    it("uses plain http only for loopback hosts", () => {
      expect(registryBaseUrl("127.0.0.1:5000")).toBe("http://127.0.0.1:5000");
      expect(registryBaseUrl("127.200.3.4")).toBe("http://127.200.3.4");
      expect(registryBaseUrl("localhost:5000")).toBe("http://localhost:5000");
      expect(registryBaseUrl("[::1]:5000")).toBe("http://[::1]:5000");
    });

    it("uses https for every other host, including look-alikes of loopback", () => {
      for (const host of [
        "registry.example.dev",
        "10.0.0.1:5000",
        "128.0.0.1",
        "localhost.example.dev",
        "[::2]:5000",
      ]) {
        expect(registryBaseUrl(host)).toBe(`https://${host}`);
        expect(isLoopbackHost(host)).toBe(false);
      }
      expect(registryBaseUrl("127.0.0.1.example.dev")).toBe("https://127.0.0.1.example.dev");
    });
  });

  describe("open registry", () => {
    it("resolves a tag to the digest the registry reported on push", async () => {
      expectDigest(await resolveBundle({ repo: open.repo(PATH), tag: "v1" }), digests.open);
    });

    it("resolves tag latest when neither tag nor digest is set", async () => {
      expectDigest(await resolveBundle({ repo: open.repo(PATH) }), digests.latest);
    });

    it("follows a tag to its new target once it is pushed again", async () => {
      const before = await pushArtifact(open, { path: "team/moving", tag: "stable", content: "first" });
      const after = await pushArtifact(open, { path: "team/moving", tag: "stable", content: "second" });
      expect(after).not.toBe(before);
      expectDigest(await resolveBundle({ repo: open.repo("team/moving"), tag: "stable" }), after);
    });

    it("fails on a missing tag with the registry's own message, not retryable", async () => {
      const message = expectFailure(
        await resolveBundle({ repo: open.repo(PATH), tag: "v404" }),
        "BundleResolutionFailed",
        false,
      );
      expect(message).toContain(`tag "v404" of ${open.repo(PATH)}`);
      expect(message).toContain("MANIFEST_UNKNOWN: manifest unknown");
    });

    it("hashes the manifest body when the registry sends no Docker-Content-Digest", async () => {
      const front = await startFront(open, { dropHeaders: ["docker-content-digest"] });
      try {
        expectDigest(await resolveBundle({ repo: front.repo, tag: "v1" }), digests.open);
      } finally {
        await front.close();
      }
    });

    it("rejects with the signal's reason when aborted", async () => {
      const reason = new Error("controller stopping");
      await expect(
        resolveBundle({ repo: open.repo(PATH), tag: "v1" }, { signal: AbortSignal.abort(reason) }),
      ).rejects.toBe(reason);
    });
  });

  describe("registries that fail or misbehave", () => {
    it("fails retryably when nothing listens on the port, after backing off between attempts", async () => {
      const { delays, sleep } = recordingSleep();
      const repo = `${await closedPort()}/${PATH}`;
      const message = expectFailure(
        await resolveBundle({ repo, tag: "v1" }, { retries: 3, sleep }),
        "BundleResolutionFailed",
        true,
      );
      expect(message).toContain("ECONNREFUSED");
      expect(message).toContain("4 attempts");
      expect(delays).toHaveLength(3);
      // Exponential backoff with jitter: each delay lies in the upper half of a doubling step.
      delays.forEach((delay, retry) => {
        expect(delay).toBeGreaterThanOrEqual(125 * 2 ** retry);
        expect(delay).toBeLessThanOrEqual(250 * 2 ** retry);
      });
    });

    it("rejects with the signal's reason when aborted while waiting to retry", async () => {
      const controller = new AbortController();
      const reason = new Error("controller stopping");
      const sleep = (ms: number, signal?: AbortSignal) => {
        controller.abort(reason);
        return delay(ms, undefined, { signal });
      };
      const repo = `${await closedPort()}/${PATH}`;
      await expect(resolveBundle({ repo }, { signal: controller.signal, sleep })).rejects.toBe(reason);
    });

    it("retries 429 after the Retry-After the registry asked for, and 5xx, then resolves", async () => {
      const front = await startFront(open, {
        outages: [{ status: 429, headers: { "retry-after": "7" } }, { status: 503 }],
      });
      try {
        const { delays, sleep } = recordingSleep();
        expectDigest(await resolveBundle({ repo: front.repo, tag: "v1" }, { sleep }), digests.open);
        expect(delays).toHaveLength(2);
        expect(delays[0]).toBe(7_000);
      } finally {
        await front.close();
      }
    });

    it("gives up after the retry budget with a retryable failure naming the status", async () => {
      const front = await startFront(open, { outages: [{ status: 503 }, { status: 503 }, { status: 503 }] });
      try {
        const { delays, sleep } = recordingSleep();
        const result = await resolveBundle({ repo: front.repo, tag: "v1" }, { retries: 2, sleep });
        expect(expectFailure(result, "BundleResolutionFailed", true)).toContain("HTTP 503");
        expect(delays).toHaveLength(2);
      } finally {
        await front.close();
      }
    });

    it("redacts a secret that a registry echoes back in its error", async () => {
      const echo = createServer((incoming, outgoing) => {
        const message = `no manifest for ${incoming.headers.authorization}`;
        outgoing.writeHead(404, { "content-type": "application/json" });
        outgoing.end(JSON.stringify({ errors: [{ code: "MANIFEST_UNKNOWN", message }] }));
      });
      const host = await listen(echo);
      try {
        const credentials = { accessToken: FORGED_ACCESS_TOKEN };
        const result = await resolveBundle({ repo: `${host}/${PATH}`, credentials });
        const message = expectFailure(result, "BundleResolutionFailed", false);
        expect(message).toContain("no manifest for Bearer <redacted>");
        expect(message).not.toContain(FORGED_ACCESS_TOKEN);
      } finally {
        await close(echo);
      }
    });

    it("times out on a registry that accepts connections but never answers", async () => {
      const silent = createServer(() => undefined);
      const host = await listen(silent);
      try {
        const result = await resolveBundle({ repo: `${host}/${PATH}` }, { timeoutMs: 200, retries: 0 });
        expect(expectFailure(result, "BundleResolutionFailed", true)).toContain("no answer within 200 ms");
      } finally {
        await close(silent);
      }
    });
  });

  describe("basic auth registry", () => {
    it("resolves with the right username and password", async () => {
      expectDigest(
        await resolveBundle({ repo: basic.repo(PATH), tag: "v1", credentials: ALICE }),
        digests.basic,
      );
    });

    it("fails on a wrong password, not retryable, naming the user", async () => {
      const credentials = { username: ALICE.username, password: WRONG_PASSWORD };
      const message = expectFailure(
        await resolveBundle({ repo: basic.repo(PATH), tag: "v1", credentials }),
        "BundleResolutionFailed",
        false,
      );
      expect(message).toContain('rejected the credentials of user "alice"');
      expect(message).toContain("HTTP 401: UNAUTHORIZED: authentication required");
    });

    it("asks for credentials when none are given", async () => {
      const message = expectFailure(
        await resolveBundle({ repo: basic.repo(PATH), tag: "v1" }),
        "BundleResolutionFailed",
        false,
      );
      expect(message).toContain("spec.source.oci.credentials.username");
    });

    it("uses passwordData over password when both are set", async () => {
      const right = { username: ALICE.username, password: WRONG_PASSWORD, passwordData: ALICE.password };
      expectDigest(
        await resolveBundle({ repo: basic.repo(PATH), tag: "v1", credentials: right }),
        digests.basic,
      );
      const wrong = { username: ALICE.username, password: ALICE.password, passwordData: WRONG_PASSWORD };
      expectFailure(
        await resolveBundle({ repo: basic.repo(PATH), tag: "v1", credentials: wrong }),
        "BundleResolutionFailed",
        false,
      );
    });
  });

  describe("token auth registry", () => {
    it("sends an access token as is, without a token exchange", async () => {
      const accessToken = await tokenFor(`repository:${PATH}:pull`);
      const grants = tokenServer.grants.length;
      expectDigest(
        await resolveBundle({ repo: tokenRegistry.repo(PATH), tag: "v1", credentials: { accessToken } }),
        digests.token,
      );
      expect(tokenServer.grants).toHaveLength(grants);
    });

    it("fails on an access token the registry does not accept, not retryable", async () => {
      const credentials = { accessToken: FORGED_ACCESS_TOKEN };
      const message = expectFailure(
        await resolveBundle({ repo: tokenRegistry.repo(PATH), tag: "v1", credentials }),
        "BundleResolutionFailed",
        false,
      );
      expect(message).toContain("rejected the access token");
    });

    it("exchanges username and password at the token service named in the challenge", async () => {
      expectDigest(
        await resolveBundle({ repo: tokenRegistry.repo(PATH), tag: "v1", credentials: ALICE }),
        digests.token,
      );
      expect(tokenServer.grants.at(-1)).toEqual({
        method: "GET",
        grantType: "basic",
        account: ALICE.username,
        clientId: undefined,
        scopes: [`repository:${PATH}:pull`],
      });
    });

    it("exchanges a refresh token through the OAuth2 refresh_token grant", async () => {
      const credentials = { refreshToken: REFRESH_TOKEN };
      expectDigest(
        await resolveBundle({ repo: tokenRegistry.repo(PATH), tag: "v1", credentials }),
        digests.token,
      );
      expect(tokenServer.grants.at(-1)).toEqual({
        method: "POST",
        grantType: "refresh_token",
        account: ALICE.username,
        clientId: "exampledev",
        scopes: [`repository:${PATH}:pull`],
      });
    });

    it("gets an anonymous token when no credentials are set", async () => {
      expectDigest(await resolveBundle({ repo: tokenRegistry.repo(PATH), tag: "v1" }), digests.token);
      expect(tokenServer.grants.at(-1)?.grantType).toBe("anonymous");
    });

    it("fails with the token service's message on a wrong password", async () => {
      const credentials = { username: ALICE.username, password: WRONG_PASSWORD };
      const message = expectFailure(
        await resolveBundle({ repo: tokenRegistry.repo(PATH), tag: "v1", credentials }),
        "BundleResolutionFailed",
        false,
      );
      expect(message).toContain(`token service ${tokenServer.realm}`);
      expect(message).toContain("incorrect username or password");
    });

    it("fails with the token service's message on a wrong refresh token", async () => {
      const credentials = { refreshToken: WRONG_REFRESH_TOKEN };
      const message = expectFailure(
        await resolveBundle({ repo: tokenRegistry.repo(PATH), tag: "v1", credentials }),
        "BundleResolutionFailed",
        false,
      );
      expect(message).toContain("refresh token is invalid or expired");
    });

    it("refuses to send credentials to a token realm over plain http on another host", async () => {
      const realm = "http://token.example.invalid/token";
      const misconfigured = await startRegistry({
        auth: { type: "token", tokenServer: { ...tokenServer, realm } },
      });
      try {
        const result = await resolveBundle({ repo: misconfigured.repo(PATH), tag: "v1", credentials: ALICE });
        expect(expectFailure(result, "BundleResolutionFailed", false)).toContain("must use https");
      } finally {
        await misconfigured.stop();
      }
    });
  });

  it("never puts a password or token in a failure message", () => {
    expect(failureMessages.length).toBeGreaterThan(10);
    const basicValues = [...secrets].map((secret) =>
      Buffer.from(`${ALICE.username}:${secret}`).toString("base64"),
    );
    for (const message of failureMessages) {
      for (const secret of [...secrets, ...basicValues]) expect(message).not.toContain(secret);
    }
  });
});
