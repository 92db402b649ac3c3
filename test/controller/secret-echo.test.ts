// Registries and token services that echo the credentials they were sent in long error messages, cut by
// the resolver at 300 characters inside the secret: no part of a secret may reach a Service's status or
// the server's log, and the message still says what failed. Loopback peers only; no docker-registry.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { serverMessage } from "../../builder/oci/failure";
import { redact } from "../../sdk/errors/redact";
import type { OCICredentialsInput } from "../../sdk/schema";
import { startTestServer, type TestServer } from "../helpers/server";
import { ServiceApi } from "./api";

const PATH = "team/app";
/** Where the resolver cuts what a server said (MAX_DETAIL_LENGTH in builder/oci/failure.ts). */
const CUT = 300;
/** How many characters of the secret would survive the cut if it came before redaction. */
const LEAK = 12;

const distinct = (prefix: string) => `${prefix}${randomBytes(16).toString("hex")}`;
const ACCESS_TOKEN = distinct("LEAKTOKEN-01-");
const SERVICE_TOKEN = distinct("SVCTOKEN-02-");
const ROBOT = { username: "robot", password: distinct("pw-echo-03-") };
const ROBOT_BASIC = Buffer.from(`${ROBOT.username}:${ROBOT.password}`).toString("base64");
const REFRESH_TOKEN = distinct("rt-echo-04-");

/** Every secret handed to the server or obtained for it. */
const SECRETS = [ACCESS_TOKEN, SERVICE_TOKEN, ROBOT.password, ROBOT_BASIC, REFRESH_TOKEN];

/** `text` holds no prefix of 6 characters or more of any secret. */
function expectNoSecretPrefix(what: string, text: string) {
  for (const secret of SECRETS) {
    expect(text.includes(secret.slice(0, 6)), `${what} holds a prefix of ${secret.slice(0, 6)}...`).toBe(
      false,
    );
  }
}

/**
 * An error message whose 300-character cut falls LEAK characters into the secret echoed after
 * `before` (e.g. "Authorization: Bearer "), given what precedes the message in the resolver's detail.
 */
function echoAt(detailPrefix: string, before: string, secret: string): string {
  const padding = CUT - LEAK - detailPrefix.length - before.length;
  const filler = "the request was refused; for your records, the request headers were as follows. ";
  return `${filler.repeat(4).slice(0, padding - 1)} ${before}${secret} (end of headers)`;
}

type Handler = (incoming: IncomingMessage, body: string, outgoing: ServerResponse, host: string) => void;

/** A loopback server standing for a registry (and its token service at /token). */
async function startPeer(handler: Handler): Promise<{ host: string; server: Server }> {
  let host = "";
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      // The resolver asks HEAD first; 404 sends it on to GET, whose body carries the error.
      if (incoming.method === "HEAD") outgoing.writeHead(404).end();
      else handler(incoming, Buffer.concat(chunks).toString("utf8"), outgoing, host);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { host, server };
}

function answerJson(outgoing: ServerResponse, status: number, body: unknown, headers = {}) {
  outgoing.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** A distribution-spec error document; the resolver's detail is `<code>: <message>`. */
function registryError(code: string, authorization: string): unknown {
  const [scheme = ""] = authorization.split(" ");
  const message = echoAt(`${code}: `, `Authorization: ${scheme} `, authorization.slice(scheme.length + 1));
  return { errors: [{ code, message }] };
}

let server: TestServer;
let api: ServiceApi;
const peers: Server[] = [];

beforeAll(async () => {
  server = await startTestServer();
  api = new ServiceApi(server);
});

afterEach(async () => {
  for (const peer of peers.splice(0)) {
    peer.closeAllConnections();
    await new Promise<void>((resolve) => peer.close(() => resolve()));
  }
});

afterAll(async () => {
  await server?.close();
});

let count = 0;

/** Creates a Service on the peer's repo and returns its Accepted condition once resolution failed. */
async function failedResolution(host: string, credentials: OCICredentialsInput) {
  const name = `echo-${++count}`;
  await api.create(name, {
    source: { oci: { repo: `${host}/${PATH}`, tag: "v1", credentials } },
    template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
  });
  const status = await api.reason(name, "Accepted", "BundleResolutionFailed");
  const accepted = status.conditions.find((condition) => condition.type === "Accepted");
  if (!accepted) throw new Error("no Accepted condition");
  const service = await server.call("GET", `/apis/compute.example.dev/v1alpha1/services/${name}`);
  expectNoSecretPrefix("the Service as read", service.text);
  const logged = server.logs.filter((line) => line.includes(`"service":"${name}"`));
  expect(
    logged.some((line) => line.includes("<redacted>")),
    "the failure is logged",
  ).toBe(true);
  expectNoSecretPrefix("the server log", server.logs.join("\n"));
  return accepted.message;
}

async function peer(handler: Handler): Promise<string> {
  const started = await startPeer(handler);
  peers.push(started.server);
  return started.host;
}

describe("a registry echoing the Authorization header, cut inside the credential", () => {
  for (const [status, code, says] of [
    [401, "UNAUTHORIZED", "the registry rejected the access token (HTTP 401: UNAUTHORIZED: "],
    [403, "DENIED", "the registry denied access (HTTP 403: DENIED: "],
    [500, "INTERNAL", "the registry kept failing (HTTP 500: INTERNAL: "],
  ] as const) {
    it(`${status}: the access token is redacted before the cut`, async () => {
      const host = await peer((incoming, _body, outgoing) =>
        answerJson(outgoing, status, registryError(code, String(incoming.headers.authorization))),
      );
      const message = await failedResolution(host, { accessToken: ACCESS_TOKEN });
      expect(message).toContain(`cannot resolve tag "v1" of ${host}/${PATH}`);
      expect(message).toContain(says);
      expect(message).toContain("the request headers were as follows");
      expect(message).toContain("Authorization: <redacted>");
    });
  }

  it("in a plain-text body, a Basic credential of user and password is redacted before the cut", async () => {
    const host = await peer((incoming, _body, outgoing) => {
      const authorization = incoming.headers.authorization;
      if (!authorization) {
        outgoing.writeHead(401, { "www-authenticate": 'Basic realm="registry"' }).end();
        return;
      }
      const text = echoAt("", "Authorization: Basic ", authorization.slice("Basic ".length));
      outgoing.writeHead(403, { "content-type": "text/plain" }).end(text);
    });
    const message = await failedResolution(host, ROBOT);
    expect(message).toContain("the registry denied access (HTTP 403: ");
    expect(message).toContain("Authorization: <redacted>");
  });

  it("a token obtained from the token service, echoed by the registry, is redacted before the cut", async () => {
    const host = await peer((incoming, _body, outgoing, self) => {
      if (incoming.url?.startsWith("/token")) {
        answerJson(outgoing, 200, { token: SERVICE_TOKEN });
        return;
      }
      const authorization = incoming.headers.authorization;
      if (authorization !== `Bearer ${SERVICE_TOKEN}`) {
        askForToken(outgoing, self);
        return;
      }
      answerJson(outgoing, 403, registryError("DENIED", authorization));
    });
    const message = await failedResolution(host, ROBOT);
    expect(message).toContain("the registry denied access (HTTP 403: DENIED: ");
    expect(message).toContain("Authorization: <redacted>");
  });
});

describe("a token service echoing what it was sent, cut inside the credential", () => {
  /** A registry whose token service at /token fails with `answer`. */
  const withTokenService = (answer: (incoming: IncomingMessage, body: string) => unknown, status: number) =>
    peer((incoming, body, outgoing, self) => {
      if (incoming.url?.startsWith("/token")) {
        answerJson(outgoing, status, answer(incoming, body));
        return;
      }
      askForToken(outgoing, self);
    });

  it("401 echoing the Basic credential: redacted, and the message names the user", async () => {
    const host = await withTokenService((incoming) => {
      const credential = String(incoming.headers.authorization).slice("Basic ".length);
      return { details: echoAt("", "Authorization: Basic ", credential) };
    }, 401);
    const message = await failedResolution(host, ROBOT);
    expect(message).toContain(
      `token service http://${host}/token refused the credentials of user "robot" (HTTP 401: `,
    );
    expect(message).toContain("Authorization: <redacted>");
  });

  it("400 echoing the form with the refresh token: redacted, and the message names the grant", async () => {
    const host = await withTokenService((_incoming, body) => {
      const token = new URLSearchParams(body).get("refresh_token") ?? "";
      return { error: "invalid_request", error_description: echoAt("", "refresh_token=", token) };
    }, 400);
    const message = await failedResolution(host, { refreshToken: REFRESH_TOKEN });
    expect(message).toContain(`token service http://${host}/token refused the refresh token (HTTP 400: `);
    expect(message).toContain("refresh_token=<redacted>");
  });
});

describe("redaction of what a server said", () => {
  const secret = "s3cr3t/with+chars=";

  it("replaces a known secret also URL-, form- and JSON-encoded", () => {
    for (const form of [
      secret,
      encodeURIComponent(secret),
      "s3cr3t%2Fwith%2Bchars%3D",
      "s3cr3t\\/with+chars=",
    ]) {
      expect(redact(`echo: ${form}.`, [secret])).toBe("echo: <redacted>.");
    }
  });

  it("replaces credentials by their shape when their value is not known (or cut by the server)", () => {
    expect(redact("got Authorization: Bearer abc.def-123", [])).toBe("got Authorization: <redacted>");
    expect(redact('{"authorization":["Basic cm9ib3Q6cHc="]}', [])).toBe('{"authorization":["<redacted>"]}');
    expect(redact("header map[Authorization:[Bearer LEAKTOK]]", [])).toBe(
      "header map[Authorization:[<redacted>]]",
    );
    expect(redact("sent bearer eyJhbGciOi.x and more", [])).toBe("sent bearer <redacted> and more");
    expect(redact("grant_type=refresh_token&refresh_token=rt-123&scope=x", [])).toBe(
      "grant_type=refresh_token&refresh_token=<redacted>&scope=x",
    );
    expect(redact('{"token": "abc", "expires_in": 300}', [])).toBe(
      '{"token": "<redacted>", "expires_in": 300}',
    );
  });

  it("keeps what says what failed", () => {
    const challenge = 'Bearer realm="https://auth.example.dev/token",service="registry"';
    expect(redact(`unauthorized; challenge: ${challenge}`, [])).toBe(`unauthorized; challenge: ${challenge}`);
    expect(redact("MANIFEST_UNKNOWN: manifest unknown", [secret])).toBe("MANIFEST_UNKNOWN: manifest unknown");
  });

  it("redacts before it cuts, so no prefix of a secret survives at the cut", () => {
    const token = distinct("CUTTOKEN-");
    const message = `${"x".repeat(280)} token ${token} trailing`;
    const said = serverMessage(Buffer.from(message), [token]) ?? "";
    expect(said).not.toContain(token.slice(0, 6));
    expect(said.endsWith("...")).toBe(true);
  });
});

/** 401 with a bearer challenge that sends the client to this registry's token service at /token. */
function askForToken(outgoing: ServerResponse, self: string): void {
  const challenge = `Bearer realm="http://${self}/token",service="echo"`;
  answerJson(
    outgoing,
    401,
    { errors: [{ code: "UNAUTHORIZED", message: "log in" }] },
    { "www-authenticate": challenge },
  );
}
