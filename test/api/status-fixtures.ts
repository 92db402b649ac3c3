import { afterAll, beforeAll, expect } from "vitest";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

// What the status subresource tests share: content types, names, a labelled Proxy, managedFields entries.

export const MERGE = "application/merge-patch+json";
export const JSON_PATCH = "application/json-patch+json";
export const APPLY = "application/apply-patch+yaml";

export const statusOf = (name: string) => `${pathOf("Proxy", name)}/status`;

export const entryOf = (object: Json, manager: string, subresource?: string) =>
  object.metadata.managedFields?.find(
    (entry: Json) => entry.manager === manager && entry.subresource === subresource,
  );

/**
 * One server for the file's tests, handed to `use` (and closed after them); a fresh name per call, and a
 * create of a labelled Proxy on that server.
 */
export function statusServer(use: (server: TestServer) => void) {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    use(server);
  });
  afterAll(async () => {
    await server?.close();
  });
  let counter = 0;
  return {
    fresh: (base: string) => `${base}-${++counter}`,
    create: async (name: string, labels: Record<string, string> = { team: "edge" }) => {
      const reply = await (server as TestServer).call("POST", pathOf("Proxy"), {
        body: manifest("Proxy", name, {}, { labels }),
      });
      expect(reply.status, reply.text).toBe(201);
      return reply.body;
    },
  };
}
