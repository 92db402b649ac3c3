import { once } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const APPLY = "application/apply-patch+yaml";
const PROXY = pathOf("Proxy", "p1");
const FIELD = "/spec/telemetry/accessLogs/json";
const DEFAULT_LIMIT = "1572864 bytes (1.5Mi)";

/** Issue 22's patch: each copy puts the whole field inside itself, doubling it. */
function doublingPatch(copies: number) {
  return Array.from({ length: copies }, (_, i) => ({ op: "copy", from: FIELD, path: `${FIELD}/c${i}` }));
}

/** A Proxy p1 whose access-log fields hold a seed of 1,000 characters, as in the issue. */
async function seededProxy(url: string): Promise<void> {
  expect((await call(url, "POST", pathOf("Proxy"), { body: manifest("Proxy", "p1", {}) })).status).toBe(201);
  const seed = { spec: { telemetry: { accessLogs: { json: { seed: "x".repeat(1000) } } } } };
  expect((await call(url, "PATCH", PROXY, { body: seed, contentType: MERGE })).status).toBe(200);
}

function expectTooLarge(
  reply: { status: number; body: { reason?: string; message?: string } },
  limit: string,
) {
  expect(reply.status).toBe(413);
  expect(reply.body.reason).toBe("RequestEntityTooLarge");
  expect(reply.body.message).toContain(limit);
}

describe("the object size limit, on the server as a process", () => {
  it("refuses issue 22's doubling JSON patch with 413, dry run or not, and stores nothing", async () => {
    const url = await spawnServer().url;
    await seededProxy(url);
    // Once the server's controller has written the readiness of the seeded generation.
    const before = await vi.waitFor(async () => {
      const read = await call(url, "GET", PROXY);
      expect(read.body.status?.observedGeneration).toBe(read.body.metadata.generation);
      return read;
    });
    for (const query of ["?dryRun=All", ""]) {
      const reply = await call(url, "PATCH", `${PROXY}${query}`, {
        body: doublingPatch(17),
        contentType: JSON_PATCH,
      });
      expectTooLarge(reply, DEFAULT_LIMIT);
      expect(reply.body.message).toMatch(/the JSON patch copies \d+ bytes by operation \d+ \(copy /);
    }
    const after = await call(url, "GET", PROXY);
    expect(after.body.metadata.resourceVersion).toBe(before.body.metadata.resourceVersion);
    expect(after.text.length).toBeLessThan(10_000);
  }, 60_000);

  it("takes --max-object-size, and refuses a create over it with 413 naming the limit", async () => {
    const url = await spawnServer(["--max-object-size", "1.5Ki"]).url;
    const big = manifest("Proxy", "big", {}, { annotations: { note: "x".repeat(2000) } });
    expectTooLarge(await call(url, "POST", pathOf("Proxy"), { body: big }), "1536 bytes (1.5Ki)");
    const small = manifest("Proxy", "small", {}, { annotations: { note: "x".repeat(500) } });
    expect((await call(url, "POST", pathOf("Proxy"), { body: small })).status).toBe(201);
  }, 60_000);

  it("refuses a --max-object-size that is not a size", async () => {
    const server = spawnServer(["--max-object-size", "big"]);
    const [code] = await once(server.child, "exit");
    expect(code).toBe(2);
    expect(server.stderr()).toContain('--max-object-size: "big" is not a size such as 1.5Mi');
  }, 60_000);
});

describe("the object size limit, on every write path", () => {
  const LIMIT = 16 * 1024;
  const LIMIT_TEXT = "16384 bytes (16Ki)";
  let server: TestServer;
  afterEach(async () => {
    await server?.close();
  });
  const start = async (maxObjectBytes = LIMIT) => {
    server = await startTestServer({ maxObjectBytes });
    await seededProxy(server.url);
  };
  const note = (length: number) => ({ annotations: { note: "x".repeat(length) } });

  it("create and replace, dry run or not", async () => {
    await start();
    for (const query of ["", "?dryRun=All"]) {
      const create = manifest("Proxy", "big", {}, note(LIMIT));
      expectTooLarge(await server.call("POST", `${pathOf("Proxy")}${query}`, { body: create }), LIMIT_TEXT);
      const current = (await server.call("GET", PROXY)).body;
      const replaced = { ...current, metadata: { ...current.metadata, ...note(LIMIT) } };
      expectTooLarge(await server.call("PUT", `${PROXY}${query}`, { body: replaced }), LIMIT_TEXT);
    }
    expect((await server.call("GET", pathOf("Proxy", "big"))).status).toBe(404);
  });

  it("merge, JSON and apply patches, dry run or not", async () => {
    await start();
    for (const query of ["", "?dryRun=All"]) {
      const merge = { metadata: note(LIMIT) };
      const add = [{ op: "add", path: "/metadata/annotations", value: note(LIMIT).annotations }];
      const apply = {
        apiVersion: "core.example.dev/v1alpha2",
        kind: "Proxy",
        metadata: { name: "p1", ...note(LIMIT) },
      };
      const replies = [
        await server.call("PATCH", `${PROXY}${query}`, { body: merge, contentType: MERGE }),
        await server.call("PATCH", `${PROXY}${query}`, { body: add, contentType: JSON_PATCH }),
        await server.call("PATCH", `${PROXY}${query}${query ? "&" : "?"}fieldManager=t`, {
          body: apply,
          contentType: APPLY,
        }),
      ];
      for (const reply of replies) expectTooLarge(reply, LIMIT_TEXT);
    }
  });

  it("stops a JSON patch at the copy that goes over the limit, before making it", async () => {
    await start();
    const reply = await server.call("PATCH", PROXY, { body: doublingPatch(30), contentType: JSON_PATCH });
    expectTooLarge(reply, LIMIT_TEXT);
    // 1,000 characters doubled: the copies pass 16 KiB at the fifth (operation 4).
    expect(reply.body.message).toContain(`by operation 4 (copy ${FIELD}/c4)`);
  });

  it("refuses a JSON patch of more than 10,000 operations with 413", async () => {
    await start(1.5 * 1024 * 1024);
    const test = { op: "test", path: "/kind", value: "Proxy" };
    const reply = await server.call("PATCH", PROXY, {
      body: Array.from({ length: 10_001 }, () => test),
      contentType: JSON_PATCH,
    });
    expect(reply.status).toBe(413);
    expect(reply.body.message).toContain(
      "The allowed maximum operations in a JSON patch is 10000, got 10001",
    );
    const allowed = await server.call("PATCH", PROXY, {
      body: Array.from({ length: 10_000 }, () => test),
      contentType: JSON_PATCH,
    });
    expect(allowed.status).toBe(200);
  });

  it("refuses a body over twice the limit before reading it", async () => {
    await start();
    const body = manifest("Proxy", "huge", {}, note(2 * LIMIT));
    const reply = await server.call("POST", pathOf("Proxy"), { body });
    expect(reply.status).toBe(413);
    expect(reply.body.reason).toBe("RequestEntityTooLarge");
    expect(reply.body.message).toContain("Request body is too large");
  });
});
