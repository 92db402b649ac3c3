import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { expect } from "vitest";
import type { FailureReason, ResolveResult } from "../../builder/oci";
import type { Registry } from "../helpers/registry";

// What the resolveBundle tests share: the credentials (every secret, which no failure message may contain),
// the expectations that collect failure messages, and fakes of the network (a closed port, a flaky front).

export const ALICE = { username: "alice", password: "pw-alice-5b2e9c71" };
export const WRONG_PASSWORD = "pw-wrong-a91c4730";
export const REFRESH_TOKEN = "rt-alice-0d7f3a58";
export const WRONG_REFRESH_TOKEN = "rt-wrong-66b0e2d4";
export const FORGED_ACCESS_TOKEN = "at-forged-3c9e1b07";
export const PATH = "team/app";

/** Every secret a test hands to the resolver or obtains for it; no failure message may contain one. */
export const secrets = new Set([
  ALICE.password,
  WRONG_PASSWORD,
  REFRESH_TOKEN,
  WRONG_REFRESH_TOKEN,
  FORGED_ACCESS_TOKEN,
]);
/** Every failure message a test saw, for the last test's check. */
export const failureMessages: string[] = [];

/** Records sleeps instead of waiting, so retry tests run at once. */
export function recordingSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

export function expectDigest(result: ResolveResult, digest: string) {
  expect(result).toEqual({ ok: true, digest });
}

export function expectFailure(result: ResolveResult, reason: FailureReason, retryable: boolean) {
  if (result.ok) throw new Error(`expected a failure, got digest ${result.digest}`);
  failureMessages.push(result.message);
  expect({ reason: result.reason, retryable: result.retryable }).toEqual({ reason, retryable });
  return result.message;
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<string> {
  const server = createServer();
  const host = await listen(server);
  await close(server);
  return host;
}

interface Outage {
  status: number;
  headers?: Record<string, string>;
}

interface FrontOptions {
  /** Answered first, one per request, before requests pass through. */
  outages?: Outage[];
  /** Response headers the front leaves out, to act like registries that omit them. */
  dropHeaders?: string[];
}

/** An HTTP front before an open registry: a flaky network path, or a registry with fewer headers. */
export async function startFront(registry: Registry, { outages = [], dropHeaders = [] }: FrontOptions) {
  const pending = [...outages];
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const outage = pending.shift();
    if (outage) {
      outgoing.writeHead(outage.status, outage.headers).end();
      return;
    }
    const method = incoming.method === "HEAD" ? "HEAD" : "GET";
    request(`${registry.url}${incoming.url}`, {
      method,
      headers: { accept: incoming.headers.accept ?? "*/*" },
    })
      .then(async (response) => {
        const headers = Object.entries(response.headers).filter(([name]) => !dropHeaders.includes(name));
        outgoing.writeHead(response.statusCode, Object.fromEntries(headers) as Record<string, string>);
        outgoing.end(Buffer.from(await response.body.arrayBuffer()));
      })
      .catch(() => outgoing.writeHead(502).end());
  });
  const host = await listen(server);
  return { repo: `${host}/${PATH}`, close: () => close(server) };
}
