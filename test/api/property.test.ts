import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";
import { manifest, pathOf, type Reply, startTestServer, type TestServer } from "../helpers/server";
import { KINDS_UNDER_TEST, SECRET_SPECS } from "./fixtures";

const RUNS = 100;

/** A 2xx, or a 4xx whose body is a Status with the same code: never a 5xx. */
function expectWellFormed(reply: Reply) {
  const ok = reply.status >= 200 && reply.status < 300;
  const clientError = reply.status >= 400 && reply.status < 500;
  expect(ok || clientError, `status ${reply.status}: ${reply.text}`).toBe(true);
  if (clientError)
    expect(reply.body).toMatchObject({ kind: "Status", status: "Failure", code: reply.status });
}

/** Mostly random JSON, often shaped like an object of `kind` so that admission itself gets exercised. */
function bodies(kind: KindName, name: string) {
  const spec = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(
      fc.constantFrom(...Object.keys(SECRET_SPECS[kind]), "env", "egress", "shutdown"),
      fc.jsonValue(),
    ),
    fc.constant(SECRET_SPECS[kind]),
  );
  const metadata = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        name: fc.oneof(fc.constant(name), fc.string()),
        generateName: fc.string(),
        resourceVersion: fc.oneof(fc.string(), fc.jsonValue()),
        labels: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.jsonValue()),
        ownerReferences: fc.jsonValue(),
      },
      { requiredKeys: [] },
    ),
  );
  const envelope = fc.record(
    {
      apiVersion: fc.oneof(fc.constant(KINDS[kind].apiVersion), fc.string()),
      kind: fc.oneof(fc.constant(kind), fc.string()),
      metadata,
      spec,
      status: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(fc.jsonValue(), envelope);
}

const jsonPatches = fc.oneof(
  fc.jsonValue(),
  fc.array(
    fc.record(
      {
        op: fc.oneof(fc.constantFrom("add", "remove", "replace", "move", "copy", "test"), fc.string()),
        path: fc.oneof(
          fc.constantFrom("", "/spec", "/metadata/name", "/metadata/labels/a", "/spec/shutdown", "/kind"),
          fc.string(),
        ),
        from: fc.constantFrom("/spec", "/metadata", "/status"),
        value: fc.jsonValue(),
      },
      { requiredKeys: ["op"] },
    ),
  ),
);

describe.each(KINDS_UNDER_TEST)("random bodies to every write endpoint of %s", (kind: KindName) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    const target = await server.call("POST", pathOf(kind), {
      body: manifest(kind, "target", SECRET_SPECS[kind]),
    });
    expect(target.status).toBe(201);
  });
  afterAll(async () => {
    // The server is still up and healthy after all of it.
    expect((await server.call("GET", "/healthz")).status).toBe(200);
    await server?.close();
  });

  const send =
    (method: "POST" | "PUT" | "PATCH", path: string, contentType?: string) => async (body: unknown) =>
      expectWellFormed(await server.call(method, path, { body: JSON.stringify(body), contentType }));

  it("POST (create) never fails with a 5xx", async () => {
    await fc.assert(fc.asyncProperty(bodies(kind, "created"), send("POST", pathOf(kind))), { numRuns: RUNS });
  });

  it("PUT (replace) never fails with a 5xx", async () => {
    await fc.assert(fc.asyncProperty(bodies(kind, "target"), send("PUT", pathOf(kind, "target"))), {
      numRuns: RUNS,
    });
  });

  it("PATCH (merge patch) never fails with a 5xx", async () => {
    const patch = send("PATCH", pathOf(kind, "target"), "application/merge-patch+json");
    await fc.assert(fc.asyncProperty(bodies(kind, "target"), patch), { numRuns: RUNS });
  });

  it("PATCH (JSON patch) never fails with a 5xx", async () => {
    const patch = send("PATCH", pathOf(kind, "target"), "application/json-patch+json");
    await fc.assert(fc.asyncProperty(jsonPatches, patch), { numRuns: RUNS });
  });

  it("answers malformed JSON on every write endpoint with a 400 Status", async () => {
    const cases: [string, string, string][] = [
      ["POST", pathOf(kind), "application/json"],
      ["PUT", pathOf(kind, "target"), "application/json"],
      ["PATCH", pathOf(kind, "target"), "application/merge-patch+json"],
      ["PATCH", pathOf(kind, "target"), "application/json-patch+json"],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.string().filter((text) => !isJson(text)),
        async (text) => {
          for (const [method, path, contentType] of cases) {
            const reply = await server.call(method as "POST", path, { body: text, contentType });
            expect([400, 415]).toContain(reply.status);
            expectWellFormed(reply);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
