import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { ApiError } from "../../sdk/errors";
import { KINDS } from "../../sdk/schema";
import { type ObjectStore, openStore } from "../../server/storage";

// What the ObjectStore tests share: a Proxy, the reason of a refusal, and stores of both kinds that are
// closed and removed after each test.

export const proxy = (name: string, spec: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: KINDS.Proxy.apiVersion,
  kind: "Proxy",
  metadata: { name },
  spec,
});

export const reasonOf = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    return error instanceof ApiError ? error.reason : error;
  }
  return "no error";
};

/** The stores and data directories a test opened: closed and removed after it (closeAfterEachTest). */
export const stores: ObjectStore[] = [];
const dirs: string[] = [];

export function closeAfterEachTest(): void {
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exampledev-store-"));
  dirs.push(dir);
  return dir;
}

export type OnListenerError = (error: unknown) => void;

/** A store from `open`, closed after the test. */
export function opener(open: (onListenerError?: OnListenerError) => ObjectStore) {
  return (onListenerError?: OnListenerError) => {
    const store = open(onListenerError);
    stores.push(store);
    return store;
  };
}
export const factories = {
  memory: (onListenerError?: OnListenerError) => openStore("memory", onListenerError),
  sqlite: (onListenerError?: OnListenerError) => openStore({ dir: tempDir() }, onListenerError),
};
