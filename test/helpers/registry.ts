// Real registries for tests: the helpers live with the demo, which needs them too (re-exported here), and a
// slow proxy in front of one.
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { Registry } from "../../scripts/lib/registry";
import { seeded } from "./faults";

export * from "../../scripts/lib/registry";

/** A tag's resolution: `HEAD` (or `GET`) `/v2/<path>/manifests/<tag or digest>`. */
const MANIFEST_PATH = /^\/v2\/.+\/manifests\/[^/?]+/;

export interface SlowManifests {
  /** `127.0.0.1:<port>`: a registry host of its own, so the controller gives it a lane of its own. */
  host: string;
  /** Manifest requests received and not yet answered (or given up by the caller). */
  inFlight(): number;
  /** Manifest requests received so far. */
  received(): number;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of `registry` that holds every manifest request for a delay drawn from
 * [minMs, maxMs] (seeded, so a run can be replayed) before forwarding it, and forwards the rest at once: a
 * slow registry, so that the controller's resolutions are under way for a while.
 */
export async function slowManifests(
  registry: Registry,
  delay: { minMs: number; maxMs: number; seed?: number },
): Promise<SlowManifests> {
  const random = seeded(delay.seed ?? 1);
  const upstream = new URL(registry.url);
  let inFlight = 0;
  let received = 0;
  const server = createServer(async (incoming, answer) => {
    if (MANIFEST_PATH.test(incoming.url ?? "")) {
      received++;
      inFlight++;
      answer.once("close", () => inFlight--);
      await sleep(delay.minMs + random() * (delay.maxMs - delay.minMs));
      // The caller gave up meanwhile (its process was killed): nothing to forward.
      if (answer.destroyed) return;
    }
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    forwarded.once("error", () => answer.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    inFlight: () => inFlight,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
