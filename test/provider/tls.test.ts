import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCertificate } from "../helpers/certificates";
import { configureProvider, created, declared, rejection } from "../helpers/provider";
import { startTestServer, type TestServer } from "../helpers/server";

/** An https front for the real server, with a certificate no system store trusts. */
async function startTlsFront(target: string, tls: { key: string; cert: string }): Promise<Server> {
  const server = createServer(tls, async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const { host: _host, ...headers } = incoming.headers;
    const answer = await request(`${target}${incoming.url}`, {
      method: incoming.method as "GET",
      headers,
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
    });
    outgoing.writeHead(answer.statusCode, answer.headers as Record<string, string>);
    outgoing.end(Buffer.from(await answer.body.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

describe("the API over https with a private CA", () => {
  let api: TestServer;
  let front: Server;
  let baseUrl: string;
  let cert: string;
  let certDir: string;

  beforeAll(async () => {
    api = await startTestServer({ logLevel: "warn" });
    const tls = await selfSignedCertificate();
    cert = tls.cert;
    front = await startTlsFront(api.url, tls);
    baseUrl = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
    certDir = mkdtempSync(path.join(tmpdir(), "exampledev-ca-"));
  });
  afterAll(async () => {
    await new Promise((resolve) => front?.close(resolve));
    await api?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  it("refuses a certificate it was not told to trust", async () => {
    await configureProvider({ "exampledev:baseUrl": baseUrl });
    const error = await rejection(
      created("Proxy", declared("edge", {}, { metadata: { name: "untrusted" } })),
    );
    expect(error.message).toMatch(/certificate/i);
    expect(api.store.get("Proxy", "untrusted")).toBeUndefined();
  });

  it("trusts the CA given inline in exampledev:caCertificate", async () => {
    await configureProvider({ "exampledev:baseUrl": baseUrl, "exampledev:caCertificate": cert });
    await created("Proxy", declared("edge", {}, { metadata: { name: "inline-ca" } }));
    expect(api.store.get("Proxy", "inline-ca")).toBeDefined();
  });

  it("trusts the CA read from exampledev:caCertificateFile", async () => {
    const file = path.join(certDir, "ca.pem");
    writeFileSync(file, cert);
    await configureProvider({ "exampledev:baseUrl": baseUrl, "exampledev:caCertificateFile": file });
    await created("Proxy", declared("edge", {}, { metadata: { name: "file-ca" } }));
    expect(api.store.get("Proxy", "file-ca")).toBeDefined();
  });
});
