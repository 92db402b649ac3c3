// A private git server on loopback for the tests: `git http-backend` (git's smart HTTP, a CGI program)
// behind a small Node HTTP server that asks for HTTP basic or bearer credentials, serving every repository
// under the temp dir. The password can be changed while it runs (a rotation) and answers can be slowed down
// (to look at the process list while a fetch is under way).
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import type { TestRepo } from "./git";

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>/<dir name of the repository>` */
  url(repo: TestRepo): string;
  /** The password (or bearer token) the server takes from now on. */
  setPassword(password: string): void;
  /** Each answer waits this long before git http-backend runs. */
  delayMs: number;
  /** The Authorization header of every request, in order (undefined for none). */
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export interface GitHttpOptions {
  username: string;
  password: string;
}

export async function startGitHttpServer(options: GitHttpOptions): Promise<GitHttpServer> {
  let password = options.password;
  const authorizations: (string | undefined)[] = [];
  const state = { delayMs: 0 };
  const authorized = (header: string | undefined) => {
    const basic = Buffer.from(`${options.username}:${password}`).toString("base64");
    return header === `Basic ${basic}` || header === `Bearer ${password}`;
  };
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    if (!authorized(request.headers.authorization)) {
      request.resume();
      response.writeHead(401, { "www-authenticate": 'Basic realm="git"' }).end("credentials required\n");
      return;
    }
    setTimeout(() => serveCgi(request, response), state.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (repo) => `http://127.0.0.1:${port}/${repo.dir.slice(tmpdir().length + 1)}`,
    setPassword: (next) => {
      password = next;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `git http-backend` for one request: CGI variables in, the body piped, CGI headers parsed out. */
function serveCgi(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? "/", "http://localhost");
  const child = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: tmpdir(),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_PROJECT_ROOT: tmpdir(),
      GIT_HTTP_EXPORT_ALL: "1",
      REQUEST_METHOD: request.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers["content-type"] ?? "",
      REMOTE_ADDR: "127.0.0.1",
      ...(request.headers["content-encoding"] && {
        HTTP_CONTENT_ENCODING: request.headers["content-encoding"],
      }),
      ...(request.headers["git-protocol"] && { GIT_PROTOCOL: String(request.headers["git-protocol"]) }),
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const text = head.toString("latin1");
    const end = text.search(/\r?\n\r?\n/);
    if (end < 0) return;
    const separator = /\r?\n\r?\n/.exec(text.slice(end))?.[0].length ?? 2;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of text.slice(0, end).split(/\r?\n/)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    response.writeHead(status, headers);
    headersSent = true;
    response.write(head.subarray(end + separator));
  });
  child.on("close", () => {
    if (!headersSent) response.writeHead(502);
    response.end();
  });
}
