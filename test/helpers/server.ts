import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Dispatcher, request } from "undici";
import { afterEach } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";
import { type RunningServer, type ServerOptions, startServer } from "../../server";

export type Method = Dispatcher.HttpMethod;

// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field; a Status, an object and a list share one call.
export type Json = any;

export interface CallOptions {
  /** Sent as JSON unless it is already a string (for malformed bodies). */
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface Reply<T = Json> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the answer is JSON, the text otherwise. */
  body: T;
  /** The raw text, for checks that no secret appears anywhere in it. */
  text: string;
}

export interface TestServer extends RunningServer {
  /** Every log line the server wrote, raw. */
  logs: string[];
  call<T = Json>(method: Method, path: string, options?: CallOptions): Promise<Reply<T>>;
}

/**
 * An in-process server on 127.0.0.1 with a free port and memory storage (unless told otherwise),
 * reached over a real socket. Pass `token` and it is sent on every call, unless a call sets its own
 * Authorization header. Close it in afterEach/afterAll.
 */
export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const logs: string[] = [];
  const server = await startServer({
    port: 0,
    storage: "memory",
    // The API alone, as kube-apiserver without the controller: no Proxy drain unless a test asks for one
    // (names its length, or turns it on).
    drainProxies: options.proxyDeletionGraceMs !== undefined,
    proxyDeletionGraceMs: 50,
    logStream: { write: (line) => void logs.push(line) },
    ...options,
  });
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  return {
    ...server,
    logs,
    call: (method, path, callOptions) => call(server.url, method, path, callOptions, auth),
  };
}

export async function call<T = Json>(
  baseUrl: string,
  method: Method,
  path: string,
  { body, contentType, headers = {} }: CallOptions = {},
  defaultHeaders: Record<string, string> = {},
  dispatcher?: Dispatcher,
): Promise<Reply<T>> {
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const response = await request(`${baseUrl}${path}`, {
    method,
    headers: {
      ...defaultHeaders,
      ...(payload !== undefined && { "content-type": contentType ?? "application/json" }),
      ...headers,
    },
    body: payload,
    dispatcher,
  });
  const text = await response.body.text();
  const isJson = String(response.headers["content-type"] ?? "").includes("application/json");
  return {
    status: response.statusCode,
    headers: response.headers,
    body: isJson ? JSON.parse(text) : text,
    text,
  };
}

/** `/apis/<group>/<version>/<plural>[/<name>]` */
export function pathOf(kind: KindName, name?: string): string {
  const { group, version, plural } = KINDS[kind];
  return `/apis/${group}/${version}/${plural}${name === undefined ? "" : `/${name}`}`;
}

/** A request body for `kind`: the envelope around `spec`, with extra metadata merged in. */
export function manifest(
  kind: KindName,
  name: string,
  spec: unknown,
  metadata: Record<string, unknown> = {},
) {
  return { apiVersion: KINDS[kind].apiVersion, kind, metadata: { name, ...metadata }, spec };
}

/** The Warning header values as a list. */
export function warningsOf(reply: Reply): string[] {
  const header = reply.headers.warning;
  return header === undefined ? [] : [header].flat();
}

/**
 * For a test file: test servers on durable storage in temporary data directories, closed (once) and removed
 * after each test. `dataDir` is where the server writes, for tests that read its files.
 */
export function useDurableServers(prefix: string) {
  const opened: { server: TestServer; dataDir: string }[] = [];
  afterEach(async () => {
    for (const { server, dataDir } of opened.splice(0)) {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
  return async (options: Partial<ServerOptions> = {}) => {
    const dataDir = mkdtempSync(join(tmpdir(), `exampledev-${prefix}-`));
    const server = await startTestServer({ storage: { dir: dataDir }, ...options });
    opened.push({ server, dataDir });
    return { server, dataDir };
  };
}
