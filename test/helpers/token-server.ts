// A registry token service (the Docker/OCI "token authentication" protocol) written for the tests: it
// signs JWTs that a real `docker-registry` in token mode verifies against the certificate it was given.
import { execFile } from "node:child_process";
import { createPrivateKey, randomUUID, sign, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { request } from "undici";

const TOKEN_LIFETIME_SECONDS = 300;

export interface TokenServerOptions {
  /** Accounts accepted with HTTP basic auth on GET (username -> password). */
  users?: Readonly<Record<string, string>>;
  /** Refresh tokens accepted by the `refresh_token` grant on POST (token -> account it stands for). */
  refreshTokens?: Readonly<Record<string, string>>;
  /** When true, a GET without credentials gets a pull-only token (a public registry). */
  allowAnonymous?: boolean;
}

/** One token request the server answered, for tests that check which path a client took. */
export interface TokenGrant {
  method: "GET" | "POST";
  grantType: "basic" | "anonymous" | "refresh_token";
  account: string | undefined;
  clientId: string | undefined;
  scopes: string[];
}

export interface TokenServer {
  /** The realm to put in the registry's challenge: `http://127.0.0.1:<port>/token`. */
  realm: string;
  service: string;
  issuer: string;
  /** PEM certificate whose key signs the tokens: the registry's `rootcertbundle`. */
  certificatePath: string;
  /** Every successful grant, oldest first. */
  grants: TokenGrant[];
  close(): Promise<void>;
}

interface Access {
  type: string;
  name: string;
  actions: string[];
}

class TokenRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, string>,
  ) {
    super(body.error_description ?? body.details ?? body.error);
  }
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

async function createSigningCertificate(dir: string) {
  const keyPath = join(dir, "token-signing.key");
  const certificatePath = join(dir, "token-signing.crt");
  // node:crypto cannot issue X.509 certificates; the registry only trusts keys given as certificates.
  await promisify(execFile)("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=exampledev test token issuer",
    "-keyout",
    keyPath,
    "-out",
    certificatePath,
  ]);
  const [keyPem, certPem] = await Promise.all([readFile(keyPath), readFile(certificatePath)]);
  return { key: createPrivateKey(keyPem), certificate: new X509Certificate(certPem), certificatePath };
}

/** `repository:team/app:pull,push` -> access entry; anonymous callers only ever get `pull`. */
function parseScope(scope: string, anonymous: boolean): Access | undefined {
  const match = /^([a-z]+):(.+):([a-z*,]+)$/.exec(scope);
  if (!match) return undefined;
  const [, type = "", name = "", actions = ""] = match;
  const granted = actions.split(",").filter((action) => !anonymous || action === "pull");
  return { type, name, actions: granted };
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export async function startTokenServer(options: TokenServerOptions = {}): Promise<TokenServer> {
  const dir = await mkdtemp(join(tmpdir(), "exampledev-token-"));
  const { key, certificate, certificatePath } = await createSigningCertificate(dir);
  const service = "exampledev-test-registry";
  const issuer = "exampledev-test-token-issuer";
  const grants: TokenGrant[] = [];

  function issueToken(account: string | undefined, scopes: string[], anonymous: boolean): string {
    const now = Math.floor(Date.now() / 1000);
    // The registry finds the verification key through the x5c chain and checks it against its root bundle.
    const header = { typ: "JWT", alg: "ES256", x5c: [certificate.raw.toString("base64")] };
    const claims = {
      iss: issuer,
      sub: account ?? "",
      aud: service,
      iat: now,
      nbf: now - 5,
      exp: now + TOKEN_LIFETIME_SECONDS,
      jti: randomUUID(),
      access: scopes.flatMap((scope) => parseScope(scope, anonymous) ?? []),
    };
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const signature = sign("sha256", Buffer.from(signingInput), { key, dsaEncoding: "ieee-p1363" });
    return `${signingInput}.${base64url(signature)}`;
  }

  function authenticate(request: IncomingMessage, form: URLSearchParams): Omit<TokenGrant, "scopes"> {
    if (request.method === "POST") {
      const grantType = form.get("grant_type");
      if (grantType !== "refresh_token") {
        throw new TokenRequestError(400, { error: "unsupported_grant_type" });
      }
      const account = options.refreshTokens?.[form.get("refresh_token") ?? ""];
      if (account === undefined) {
        throw new TokenRequestError(401, {
          error: "invalid_grant",
          error_description: "refresh token is invalid or expired",
        });
      }
      return { method: "POST", grantType, account, clientId: form.get("client_id") ?? undefined };
    }
    const credentials = basicCredentials(request.headers.authorization);
    if (credentials) {
      if (options.users?.[credentials.username] !== credentials.password) {
        throw new TokenRequestError(401, { details: "incorrect username or password" });
      }
      return { method: "GET", grantType: "basic", account: credentials.username, clientId: undefined };
    }
    if (!options.allowAnonymous) {
      throw new TokenRequestError(401, { details: "authentication required" });
    }
    return { method: "GET", grantType: "anonymous", account: undefined, clientId: undefined };
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? "/", "http://token.invalid");
    const form = request.method === "POST" ? await readForm(request) : url.searchParams;
    if (url.pathname !== "/token" || (request.method !== "GET" && request.method !== "POST")) {
      throw new TokenRequestError(404, { error: "not_found" });
    }
    if (form.get("service") !== service) {
      throw new TokenRequestError(400, { error: "invalid_request", error_description: "unknown service" });
    }
    const caller = authenticate(request, form);
    // GET repeats `scope`; the OAuth2 POST form carries them space-separated.
    const scopes = form.getAll("scope").flatMap((scope) => scope.split(" ").filter(Boolean));
    const token = issueToken(caller.account, scopes, caller.grantType === "anonymous");
    grants.push({ ...caller, scopes });
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        token,
        access_token: token,
        expires_in: TOKEN_LIFETIME_SECONDS,
        issued_at: new Date().toISOString(),
      }),
    );
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const status = error instanceof TokenRequestError ? error.status : 500;
      const body = error instanceof TokenRequestError ? error.body : { error: "server_error" };
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (status === 401) headers["www-authenticate"] = 'Basic realm="exampledev test token service"';
      response.writeHead(status, headers);
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    certificatePath,
    grants,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A token for `scope` from the token server, asked with HTTP basic auth as a registry client would. */
export async function requestToken(
  tokenServer: TokenServer,
  account: { username: string; password: string },
  scope: string,
): Promise<string> {
  const url = new URL(tokenServer.realm);
  url.searchParams.set("service", tokenServer.service);
  url.searchParams.set("scope", scope);
  const authorization = `Basic ${Buffer.from(`${account.username}:${account.password}`).toString("base64")}`;
  const response = await request(url, { headers: { authorization } });
  const { token } = (await response.body.json()) as { token: string };
  return token;
}
