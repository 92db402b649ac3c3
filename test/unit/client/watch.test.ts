// The client's watch against loopback servers that stream lines as a Kubernetes API server does, split
// anywhere, and that refuse or end watches.
import { afterEach, describe, expect, it } from "vitest";
import { type Client, createClient, GoneError, NotFoundError, type Proxy } from "../../../sdk/client";
import { type Peer, type PeerHandler, startPeer } from "./peer";

const PROXIES = "/apis/core.example.dev/v1alpha2/proxies";
const TOKEN = "api-token-0f1e2d3c";

const proxy = (name: string, resourceVersion: string) => ({
  apiVersion: "core.example.dev/v1alpha2",
  kind: "Proxy",
  metadata: { name, resourceVersion },
});
const line = (type: string, object: object) => `${JSON.stringify({ type, object })}\n`;

describe("watch", () => {
  let peer: Peer | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await peer?.close();
  });
  const serve = async (handler: PeerHandler) => {
    peer = await startPeer(handler);
    client = createClient({ baseUrl: peer.baseUrl, token: TOKEN });
    return client;
  };
  const collect = async (stream: AsyncIterable<{ type: string; object: Proxy }>) => {
    const seen: string[] = [];
    for await (const event of stream) seen.push(`${event.type} ${event.object.metadata.name ?? ""}`);
    return seen;
  };

  it("asks for a watch from a version and reads events split across chunks until the server ends it", async () => {
    const api = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const text =
        line("ADDED", proxy("a", "11")) +
        line("MODIFIED", proxy("a", "12")) +
        line("BOOKMARK", { kind: "Proxy", metadata: { resourceVersion: "15" } }) +
        line("DELETED", proxy("a", "16"));
      // Cut in the middle of lines, as TCP may.
      response.write(text.slice(0, 30));
      setTimeout(() => {
        response.write(text.slice(30, 95));
        setTimeout(() => response.end(text.slice(95)), 5);
      }, 5);
    });
    const stream = await api.proxies.watch({ resourceVersion: "10", allowWatchBookmarks: true });
    expect(await collect(stream)).toEqual(["ADDED a", "MODIFIED a", "BOOKMARK ", "DELETED a"]);
    const [request] = peer?.requests ?? [];
    expect(request?.method).toBe("GET");
    expect(request?.url).toBe(`${PROXIES}?watch=true&resourceVersion=10&allowWatchBookmarks=true`);
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("resolves once the server answered, before any event", async () => {
    let send: ((text: string) => void) | undefined;
    const api = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.flushHeaders();
      send = (text) => response.end(text);
    });
    const stream = await api.proxies.watch();
    const events = collect(stream);
    send?.(line("ADDED", proxy("late", "3")));
    expect(await events).toEqual(["ADDED late"]);
  });

  it("throws GoneError for a version the server no longer keeps, at the start or as an ERROR event", async () => {
    const expired = {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Expired",
      code: 410,
      message: "too old resource version: 3 (40)",
    };
    const api = await serve((request, response) => {
      if (request.url.includes("resourceVersion=3")) {
        response.writeHead(410, { "content-type": "application/json" }).end(JSON.stringify(expired));
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(line("ADDED", proxy("a", "41")) + line("ERROR", expired));
      }
    });
    await expect(api.proxies.watch({ resourceVersion: "3" })).rejects.toBeInstanceOf(GoneError);
    const stream = await api.proxies.watch({ resourceVersion: "40" });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((e) => e);
    expect(seen).toEqual(["ADDED"]);
    expect(error).toBeInstanceOf(GoneError);
    expect(error.message).toContain("too old resource version");
  });

  it("refuses a server without watches with the error its answer stands for", async () => {
    const api = await serve((_request, response) => {
      response.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
    });
    await expect(api.proxies.watch()).rejects.toBeInstanceOf(NotFoundError);
  });

  it("ends the watch when the caller closes it", async () => {
    let closed = false;
    const api = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write(line("ADDED", proxy("a", "1")));
      response.on("close", () => {
        closed = true;
      });
    });
    const stream = await api.proxies.watch();
    for await (const event of stream) {
      expect(event.type).toBe("ADDED");
      stream.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });
});
