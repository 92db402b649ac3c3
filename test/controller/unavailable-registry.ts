import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A registry on loopback that answers every request 503, counting them. */
export interface UnavailableRegistry {
  /** `127.0.0.1:<port>/team/app`, a repo on it. */
  repo: string;
  requests(): number;
  close(): Promise<void>;
}

export async function startUnavailableRegistry(): Promise<UnavailableRegistry> {
  let requests = 0;
  const registry = createServer((_request, response) => {
    requests++;
    response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
  const { port } = registry.address() as AddressInfo;
  return {
    repo: `127.0.0.1:${port}/team/app`,
    requests: () => requests,
    close: async () => {
      registry.closeAllConnections();
      await new Promise<void>((resolve) => registry.close(() => resolve()));
    },
  };
}
