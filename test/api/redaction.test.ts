import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAST_APPLIED } from "../../admission";
import { type KindName, PLACEHOLDERS } from "../../sdk/schema";
import { manifest, pathOf, type Reply, startTestServer, type TestServer } from "../helpers/server";
import { KINDS_UNDER_TEST, SECRET_SPECS, SECRETS } from "./fixtures";

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const TOKEN = "api-token-0a1b2c3d4e";

/** No planted secret (nor the API token) anywhere in the text. */
function expectNoSecret(text: string) {
  for (const secret of [...Object.values(SECRETS), TOKEN]) expect(text).not.toContain(secret);
}

describe("secrets are never echoed", () => {
  let server: TestServer;
  const replies: Reply[] = [];
  const call = async (...args: Parameters<TestServer["call"]>) => {
    const reply = await server.call(...args);
    replies.push(reply);
    return reply;
  };

  beforeAll(async () => {
    server = await startTestServer({ token: TOKEN, logLevel: "trace" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("returns placeholders for every secret of a Proxy", async () => {
    const reply = await call("POST", pathOf("Proxy"), {
      body: manifest("Proxy", "secret-proxy", SECRET_SPECS.Proxy),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec.telemetry.thirdPartySinks).toEqual({
      vendorAlphaLogs: { key: PLACEHOLDERS.apiKey },
      vendorBetaTraces: { keyData: PLACEHOLDERS.apiKey },
    });
  });

  it("moves a write-only password to passwordData and returns placeholders for registry credentials", async () => {
    const reply = await call("POST", pathOf("Service"), {
      body: manifest("Service", "secret-service", SECRET_SPECS.Service),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec.source.oci.credentials).toEqual({
      username: "robot",
      passwordData: PLACEHOLDERS.passwordData,
      refreshToken: PLACEHOLDERS.refreshToken,
    });
    expect(server.store.get("Service", "secret-service")?.spec).toMatchObject({
      source: {
        oci: { credentials: { passwordData: SECRETS.password, refreshToken: SECRETS.refreshToken } },
      },
    });
    expect(JSON.stringify(server.store.get("Service", "secret-service"))).not.toContain('"password"');
  });

  it("returns the access token placeholder for a ServiceRevision and keeps the stored value", async () => {
    const reply = await call("POST", pathOf("ServiceRevision"), {
      body: manifest("ServiceRevision", "secret-revision", SECRET_SPECS.ServiceRevision),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec.bundle.credentials).toEqual({ accessToken: PLACEHOLDERS.accessToken });
    expect(server.store.get("ServiceRevision", "secret-revision")?.spec).toMatchObject({
      bundle: { credentials: { accessToken: SECRETS.accessToken } },
    });
  });

  it.each(KINDS_UNDER_TEST)(
    "keeps %s secrets through get, list, PUT and both patches",
    async (kind: KindName) => {
      const name = `roundtrip-${kind.toLowerCase()}`;
      await call("POST", pathOf(kind), { body: manifest(kind, name, SECRET_SPECS[kind]) });
      // The controller's status write moves a Service's resourceVersion: the PUT below comes after it.
      await server.idle();
      const stored = server.store.get(kind, name)?.spec;

      const read = await call("GET", pathOf(kind, name));
      await call("GET", pathOf(kind));
      const put = await call("PUT", pathOf(kind, name), {
        body: { ...read.body, metadata: { ...read.body.metadata, labels: { step: "put" } } },
      });
      expect(put.status).toBe(200);
      expect(
        (
          await call("PATCH", pathOf(kind, name), {
            body: { metadata: { labels: { step: "merge" } } },
            contentType: MERGE,
          })
        ).status,
      ).toBe(200);
      const jsonPatch = await call("PATCH", pathOf(kind, name), {
        body: [{ op: "replace", path: "/metadata/labels/step", value: "json" }],
        contentType: JSON_PATCH,
      });
      expect(jsonPatch.status).toBe(200);
      // Writing back placeholders never overwrites the stored secrets.
      expect(server.store.get(kind, name)?.spec).toEqual(stored);
    },
  );

  it("keeps kubectl's last applied configuration without the secret values it carried", async () => {
    // What `kubectl apply` (client-side) sends: the whole configuration in an annotation, then on the next
    // apply a patch computed against that annotation.
    const applied = manifest("Proxy", "applied-proxy", SECRET_SPECS.Proxy);
    const annotations = { [LAST_APPLIED]: `${JSON.stringify(applied)}\n` };
    const created = await call("POST", pathOf("Proxy"), {
      body: manifest("Proxy", "applied-proxy", SECRET_SPECS.Proxy, { annotations }),
    });
    expect(created.status).toBe(201);
    const kept = JSON.parse(created.body.metadata.annotations[LAST_APPLIED]);
    expect(kept.spec.telemetry.thirdPartySinks.vendorAlphaLogs).toEqual({ key: PLACEHOLDERS.apiKey });
    expect(created.body.metadata.annotations[LAST_APPLIED].endsWith("\n")).toBe(true);
    const stored = server.store.get("Proxy", "applied-proxy");
    expect(JSON.stringify(stored?.metadata)).not.toContain(SECRETS.apiKey);
    // The values themselves are kept.
    expect(stored?.spec).toMatchObject(SECRET_SPECS.Proxy);
    await call("DELETE", pathOf("Proxy", "applied-proxy"));
  });

  it("gives a JSON patch test nothing to guess a secret with", async () => {
    const reply = await call("PATCH", pathOf("ServiceRevision", "secret-revision"), {
      body: [{ op: "test", path: "/spec/bundle/credentials/accessToken", value: SECRETS.accessToken }],
      contentType: JSON_PATCH,
    });
    expect(reply.status).toBe(422);
  });

  it("does not echo secrets in validation errors", async () => {
    const spec = { ...SECRET_SPECS.Service, revisionHistoryLimit: -1, template: {} };
    const reply = await call("POST", pathOf("Service"), { body: manifest("Service", "broken", spec) });
    expect(reply.status).toBe(422);
  });

  it("does not echo secrets when deleting", async () => {
    await call("DELETE", pathOf("Proxy", "secret-proxy"));
    await call("DELETE", pathOf("ServiceRevision"));
    await call("DELETE", pathOf("Service", "secret-service"));
  });

  it("left no secret in any response body above", () => {
    expect(replies.length).toBeGreaterThan(15);
    for (const reply of replies) expectNoSecret(reply.text);
  });

  it("left no secret, body or Authorization header in any log line, at trace level", () => {
    expect(server.logs.length).toBeGreaterThanOrEqual(replies.length);
    for (const line of server.logs) {
      expectNoSecret(line);
      expect(line.toLowerCase()).not.toContain("authorization");
      expect(line).not.toContain(PLACEHOLDERS.apiKey);
    }
  });

  it("logs one structured line per request with method, path, status and duration", () => {
    const requestLines = server.logs
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === "request");
    expect(requestLines).toHaveLength(replies.length);
    for (const entry of requestLines) {
      expect(entry).toMatchObject({
        method: expect.any(String),
        path: expect.stringMatching(/^\/apis\//),
        status: expect.any(Number),
        durationMs: expect.any(Number),
      });
    }
  });
});
