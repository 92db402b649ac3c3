import { afterEach, beforeEach } from "vitest";
import type { KindName } from "../../sdk/schema";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { DIGEST } from "./fixtures";

// What the server-side apply tests share: content types, a Service a manager applies, managedFields entries.

export const APPLY = "application/apply-patch+yaml";
export const MERGE = "application/merge-patch+json";
export const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
export const REPO = "registry.example.dev/team/app";

/** A Service applied by a manager: its source and the env and bindings it manages. */
export function service(
  name: string,
  templateSpec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
) {
  return manifest(
    "Service",
    name,
    {
      source: { oci: { repo: REPO, digest: DIGEST } },
      template: { spec: { runtime: { compatibilityDate: "2024-09-01" }, ...templateSpec } },
    },
    metadata,
  );
}

/** The managedFields entry of a manager's writes of one operation. */
export function entry(object: Json, manager: string, operation = "Apply") {
  return (object.metadata.managedFields ?? []).find(
    (field: Json) => field.manager === manager && field.operation === operation,
  );
}

/**
 * A fresh server for each test, handed to `use` (and closed after the test), and server-side apply on it by
 * the manager `a` unless `query` names another.
 */
export function applyServer(use: (server: TestServer) => void) {
  let server: TestServer | undefined;
  beforeEach(async () => {
    server = await startTestServer();
    use(server);
  });
  afterEach(async () => {
    await server?.close();
  });
  return (
    kind: KindName,
    name: string,
    body: unknown,
    query = "fieldManager=a",
    headers: Record<string, string> = {},
  ) =>
    (server as TestServer).call("PATCH", `${pathOf(kind, name)}${query ? `?${query}` : ""}`, {
      body,
      contentType: APPLY,
      headers,
    });
}
