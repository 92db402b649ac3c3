// What the Kubernetes-behaviour tests of both servers share: names, counting, requests, the failure envelope.
import { expect, it } from "vitest";
import { manifest, pathOf } from "../../helpers/server";
import type { Backend } from "./backends";

/** A failure Status as both servers send it: the fixed envelope around `fields`. */
export const failure = (fields: Record<string, unknown>) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  ...fields,
});

export const MERGE = "application/merge-patch+json";
export const JSON_PATCH = "application/json-patch+json";
export const APPLY = "application/apply-patch+yaml";

let counter = 0;
/** A name no other test uses, so tests need no reset between them. */
export const unique = (base: string) => `${base}-${++counter}`;

/** What Kubernetes-behaviour tests are defined, per backend, and how many ran (printed at the end). */
export const RUN_COUNT = new Map<string, number>();

/** An `it` on the enclosing describe's backend that counts itself for the per-backend total. */
export function countedTest(backend: () => Backend) {
  return (name: string, body: (server: Backend) => Promise<void>) =>
    it(name, async () => {
      const server = backend();
      await body(server);
      RUN_COUNT.set(server.name, (RUN_COUNT.get(server.name) ?? 0) + 1);
    });
}

export const proxies = pathOf("Proxy");

/** Creates a Proxy (201 expected) and answers the stored object. */
export async function create(server: Backend, name: string, labels: Record<string, string> = {}) {
  const reply = await server.call("POST", proxies, { body: manifest("Proxy", name, {}, { labels }) });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** The path of a Proxy's status subresource. */
export const statusOf = (name: string) => `${pathOf("Proxy", name)}/status`;

export const patch = async (server: Backend, name: string, body: unknown, type = MERGE) =>
  server.call("PATCH", pathOf("Proxy", name), { body, contentType: type });
