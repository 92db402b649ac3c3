// A pass-through HTTP proxy that streams answers (watches included) and can misbehave on watches: refuse
// them (404, as a gateway without watches), or cut the open ones and hold back new ones. For the tests of
// the reflector and of the waits over it, in front of either backend.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Dispatcher, request } from "undici";

export interface Exchange {
  method: string;
  path: string;
  status: number;
}

export type WatchProxy = Awaited<ReturnType<typeof startWatchProxy>>;

const isWatch = (path: string) => /[?&]watch=(true|1)/.test(path);

/** `dispatcher`: how the proxy reaches an HTTPS target (its CA); the proxy itself speaks plain HTTP. */
export async function startWatchProxy(target: string, dispatcher?: Dispatcher) {
  const exchanges: Exchange[] = [];
  const open = new Set<ServerResponse>();
  let refuseWatches = false;
  let held: (() => void)[] | undefined;
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "/";
    if (isWatch(path) && refuseWatches) {
      exchanges.push({ method: req.method ?? "GET", path, status: 404 });
      res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
      return;
    }
    if (isWatch(path) && held) await new Promise<void>((release) => held?.push(release));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const answer = await request(`${target}${path}`, {
      ...(dispatcher && { dispatcher }),
      method: (req.method ?? "GET") as "GET",
      headers,
      ...(body.length > 0 && { body }),
    });
    exchanges.push({ method: req.method ?? "GET", path, status: answer.statusCode });
    const { connection: _c, "transfer-encoding": _t, "keep-alive": _k, ...passed } = answer.headers;
    res.writeHead(answer.statusCode, passed as Record<string, string>);
    res.flushHeaders();
    open.add(res);
    res.once("close", () => {
      open.delete(res);
      answer.body.destroy();
    });
    try {
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch {
      res.destroy();
    }
  };
  const server: Server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    watches: () => exchanges.filter((exchange) => isWatch(exchange.path)),
    refuseWatches: (refuse: boolean) => {
      refuseWatches = refuse;
    },
    /** New watches wait until `release`; the ones open now are cut (their connections reset). */
    holdAndCut: () => {
      held = [];
      for (const res of open) if (isWatch(res.req.url ?? "")) res.socket?.resetAndDestroy();
    },
    release: () => {
      for (const go of held ?? []) go();
      held = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
