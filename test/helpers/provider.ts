// Calling the dynamic provider method by method, as the Pulumi engine does, against real servers: inputs
// shaped like the SDK's resource classes send them, and a loopback HTTP proxy that can stand between the
// provider and the API to answer, delay or disturb chosen requests.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Socket } from "node:net";
import { Config } from "@pulumi/pulumi/cmd/dynamic-provider/config";
import { type Dispatcher, request } from "undici";
import { afterAll, afterEach, beforeAll } from "vitest";
import { resourceProvider, type SETTING_KEYS } from "../../provider";
import type { ObjectProvider } from "../../provider/object-provider";
import type { ObjectInputs, ObjectOutputs } from "../../provider/state";
import { type Client, createClient } from "../../sdk/client";
import { KIND_NAMES, type KindName } from "../../sdk/schema";
import type { ServiceStatus } from "../../sdk/schema/status";
import type { ServerOptions } from "../../server";
import { startTestServer, type TestServer } from "./server";

/** What Pulumi stores as `__provider`: the serialized provider. Opaque to the provider itself. */
export const SERIALIZED_PROVIDER = "exports.handler = __provider_shim;";

/** Stack config as the provider reads it: any of its setting keys. */
export type ProviderConfig = Partial<
  Record<(typeof SETTING_KEYS)[keyof typeof SETTING_KEYS]["config"], string>
>;

/** The providers of a test file, one per kind, as the engine's dynamic-provider host keeps them per process. */
const providers = new Map<KindName, ObjectProvider>();

/** This test file's provider of `kind` (made by the package's `resourceProvider`, as the host does). */
export function providerOf(kind: KindName): ObjectProvider {
  let provider = providers.get(kind);
  if (provider === undefined) {
    provider = resourceProvider(kind);
    providers.set(kind, provider);
  }
  return provider;
}

/**
 * `configure` as the engine's dynamic-provider host calls it: once per provider (kind), with the stack
 * config (secrets decrypted) behind the host's own Config class.
 */
export async function configureProvider(config: ProviderConfig): Promise<void> {
  const request = { config: new Config(withoutDryRun(config), "provider-tests") };
  for (const kind of KIND_NAMES) await providerOf(kind).configure(request);
}

/**
 * These tests call one method at a time, and a test asks the API about previews (access, dry runs: on by
 * default with an address) only where it says so, with `exampledev:serverDryRun` (dry-run.test.ts).
 */
function withoutDryRun(config: ProviderConfig): ProviderConfig {
  return { "exampledev:serverDryRun": "false", ...config };
}

/** The provider of `kind` in a new provider process (a refresh, a destroy): made and configured anew. */
export async function freshProvider(kind: KindName, config: ProviderConfig): Promise<ObjectProvider> {
  const provider = resourceProvider(kind);
  await provider.configure({ config: new Config(withoutDryRun(config), "provider-tests") });
  return provider;
}

export interface DeclaredOptions {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  adopt?: boolean;
  await?: { timeoutSeconds?: number; skip?: boolean };
}

/** The inputs a resource class sends for `new <Kind>(logicalName, { metadata, spec, ... })`, before check. */
export function declared(
  logicalName: string | undefined,
  spec: unknown,
  options: DeclaredOptions = {},
): ObjectInputs {
  return {
    metadata: options.metadata ?? {},
    spec,
    ...(options.adopt !== undefined && { adopt: options.adopt }),
    ...(options.await !== undefined && { await: options.await }),
    // Sent only for an object the program does not name (api-resource.ts), with its URN as the seed of its
    // generated names: each call is a resource of its own stack, so same-named ones get names of their own.
    ...(typeof options.metadata?.name !== "string" && {
      logicalName,
      nameSeed: `urn:pulumi:${randomUUID()}::provider-tests::exampledev::${logicalName}`,
    }),
    __provider: SERIALIZED_PROVIDER,
  } as ObjectInputs;
}

/** A resource's outputs, the status typed as a Service's (other kinds' statuses are a subset). */
export type Outputs = ObjectOutputs & { status: ServiceStatus };

/** `check` of inputs that must pass; returns what create, update and diff receive. */
export async function checked(kind: KindName, news: ObjectInputs, olds: Partial<ObjectInputs> = {}) {
  const result = await providerOf(kind).check(olds, news);
  if (result.failures?.length) {
    throw new Error(`check failed: ${result.failures.map((failure) => failure.reason).join("; ")}`);
  }
  return result.inputs as ObjectInputs;
}

/** check then create, as `pulumi up` does for a new resource; returns the id and the outputs. */
export async function created(kind: KindName, news: ObjectInputs) {
  const inputs = await checked(kind, news);
  const result = await providerOf(kind).create(inputs);
  return { id: result.id, inputs, outs: result.outs as Outputs };
}

/** The error a promise rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** A Kubernetes `Status` error body; without details when none are given, as kube-apiserver sends it. */
export function statusBody(code: number, reason: string, message: string, details?: object) {
  return {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message,
    reason,
    code,
    ...(details && { details }),
  };
}

export interface ProxiedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ProxiedReply {
  /** 0 with `reset`. */
  status: number;
  /** Drop the connection instead of answering: the client sees a reset, and cannot tell whether it was served. */
  reset?: boolean;
  headers?: Record<string, string>;
  /** Sent as JSON unless a string. */
  body?: unknown;
}

/** Decides the answer to one request; `forward` sends it on to the real server and returns its answer. */
export type ProxyHandler = (
  request: ProxiedRequest,
  forward: () => Promise<ProxiedReply>,
) => Promise<ProxiedReply>;

export interface Exchange {
  method: string;
  path: string;
  requestBody: string;
  status: number;
  /** The answer as the provider received it, parsed when JSON. */
  responseBody: unknown;
}

export interface LoopbackProxy {
  /** `http://127.0.0.1:<port>`: configure the provider with it. */
  url: string;
  /** Every exchange the provider had through the proxy, in order. */
  exchanges: Exchange[];
  /** The exchanges of one method whose path starts with `pathPrefix`. */
  seen(method: string, pathPrefix: string): Exchange[];
  close(): Promise<void>;
}

// Headers of one connection, not of the message: each side of the proxy sets its own.
const HOP_BY_HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length"]);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, String(value)]],
    ),
  );
}

function exchangeOf(incoming: ProxiedRequest) {
  return { method: incoming.method, path: incoming.path, requestBody: incoming.body };
}

/**
 * An HTTP proxy on 127.0.0.1 in front of `target` (the API server, or a registry); by default it forwards
 * everything unchanged.
 */
export async function startLoopbackProxy(
  target: string,
  handler: ProxyHandler = (_request, forward) => forward(),
  /** How the proxy reaches an HTTPS target (its CA); the proxy itself speaks plain HTTP on loopback. */
  dispatcher?: Dispatcher,
): Promise<LoopbackProxy> {
  const exchanges: Exchange[] = [];
  const forwardTo = async (incoming: ProxiedRequest): Promise<ProxiedReply> => {
    const response = await request(`${target}${incoming.path}`, {
      ...(dispatcher && { dispatcher }),
      method: incoming.method as "GET",
      headers: endToEnd(incoming.headers),
      ...(incoming.body !== "" && { body: incoming.body }),
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: endToEnd(response.headers), body: text };
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const incoming = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    try {
      const reply = await handler(incoming, () => forwardTo(incoming));
      if (reply.reset) {
        exchanges.push({ ...exchangeOf(incoming), status: 0, responseBody: undefined });
        res.socket?.resetAndDestroy();
        return;
      }
      const text =
        typeof reply.body === "string"
          ? reply.body
          : reply.body === undefined
            ? ""
            : JSON.stringify(reply.body);
      const json = typeof reply.body === "object" || /json/.test(reply.headers?.["content-type"] ?? "");
      exchanges.push({
        ...exchangeOf(incoming),
        status: reply.status,
        responseBody: json && text !== "" ? JSON.parse(text) : text,
      });
      res.writeHead(reply.status, {
        ...(typeof reply.body === "object" && { "content-type": "application/json" }),
        ...reply.headers,
      });
      res.end(text);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`loopback proxy failed: ${error}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    seen: (method, pathPrefix) =>
      exchanges.filter((exchange) => exchange.method === method && exchange.path.startsWith(pathPrefix)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * A handler that gives `reply` to the first `times` requests for which `matches` holds and forwards the
 * rest: a server that is briefly unavailable.
 */
export function failingFirst(
  times: number,
  matches: (request: ProxiedRequest) => boolean,
  reply: ProxiedReply,
): ProxyHandler {
  let failed = 0;
  return async (incoming, forward) => {
    if (failed < times && matches(incoming)) {
      failed++;
      return reply;
    }
    return forward();
  };
}

export interface SilentRegistry {
  /** `127.0.0.1:<port>`, for a BundleRef's repo. */
  host: string;
  close(): Promise<void>;
}

/**
 * A registry address that accepts connections and never answers: the controller's tag resolution hangs
 * there (until its own timeouts), so a Service waits for its first status as long as the test wants.
 */
export async function startSilentRegistry(): Promise<SilentRegistry> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * For a describe block: a test server, a client of it, and at most one loopback proxy per test, closed after
 * it. `through(handler)` puts a proxy in front of the server and points the provider at the proxy.
 */
export function useProxiedServer(options: Partial<ServerOptions> = {}) {
  const state: { server?: TestServer; api?: Client; proxy?: LoopbackProxy } = {};
  beforeAll(async () => {
    state.server = await startTestServer({ logLevel: "warn", ...options });
    state.api = createClient({ baseUrl: state.server.url });
  });
  afterEach(async () => {
    await state.proxy?.close();
    state.proxy = undefined;
  });
  afterAll(async () => {
    await state.api?.close();
    await state.server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useProxiedServer: used outside a test");
    return value;
  };
  return {
    get server(): TestServer {
      return started(state.server);
    },
    get api(): Client {
      return started(state.api);
    },
    async through(handler?: ProxyHandler): Promise<LoopbackProxy> {
      state.proxy = await startLoopbackProxy(started(state.server).url, handler);
      await configureProvider({ "exampledev:baseUrl": state.proxy.url });
      return state.proxy;
    },
  };
}
