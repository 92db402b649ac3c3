import { createServer as createHttpServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client's port: requests with the same one came over the same (kept-alive) connection. */
  remotePort: number | undefined;
}

/** Answers one request; `index` counts requests from 0. Never answering (stalling) is allowed. */
export type PeerHandler = (request: RecordedRequest, response: ServerResponse, index: number) => void;

export interface Peer {
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface PeerOptions {
  /** Listen on this port (to bring a server up where a client already points); default a free one. */
  port?: number;
  tls?: { key: string; cert: string };
}

export async function startPeer(handler: PeerHandler, options: PeerOptions = {}): Promise<Peer> {
  const requests: RecordedRequest[] = [];
  const server = options.tls ? createHttpsServer(options.tls) : createHttpServer();
  const peer = { baseUrl: "", port: 0, requests, close };
  server.on("request", (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const recorded = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        remotePort: request.socket.remotePort,
      };
      requests.push(recorded);
      handler(recorded, response, requests.length - 1);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  peer.port = (server.address() as AddressInfo).port;
  peer.baseUrl = `${options.tls ? "https" : "http"}://127.0.0.1:${peer.port}`;

  function close(): Promise<void> {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
  return peer;
}

/** A port nothing listens on (for now): bind a free one and release it. */
export async function freePort(): Promise<number> {
  const peer = await startPeer(() => {});
  await peer.close();
  return peer.port;
}

export function json(response: ServerResponse, statusCode: number, body: unknown, headers = {}): void {
  response.writeHead(statusCode, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

export function status(code: number, reason: string, message: string, details?: object): object {
  return {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code,
    reason,
    message,
    ...(details && { details }),
  };
}
