import { describe, expect, it } from "vitest";
import { call, manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

const PROXY = pathOf("Proxy", "p1");
const APPLY = "application/apply-patch+yaml";
const HEAD = "apiVersion: core.example.dev/v1alpha2\nkind: Proxy\nmetadata:\n  name: p1\nspec:\n";

/** A server process (spawnServer's are stopped after each test) with a Proxy p1. */
async function serverWithProxy(): Promise<string> {
  const url = await spawnServer().url;
  expect((await call(url, "POST", pathOf("Proxy"), { body: manifest("Proxy", "p1", {}) })).status).toBe(201);
  return url;
}

describe("bodies the server refuses, on the server as a process", () => {
  it("says a YAML apply nested thousands deep is too deep, as for JSON", async () => {
    const url = await serverWithProxy();
    const flow = `${HEAD}  x: ${"[".repeat(3000)}${"]".repeat(3000)}\n`;
    let block = HEAD;
    for (let depth = 1; depth <= 1200; depth++) block += `${"  ".repeat(depth)}a${depth}:\n`;
    for (const body of [flow, block]) {
      const reply = await call(url, "PATCH", `${PROXY}?fieldManager=deep`, { body, contentType: APPLY });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe("the request body is nested more than 100 levels deep");
    }
  }, 60_000);

  it("refuses a __proto__ key of a valid JSON body as such, naming where it is", async () => {
    const url = await serverWithProxy();
    const body = '{"spec": {"telemetry": {"accessLogs": {"json": {"__proto__": {"x": 1}}}}}}';
    for (const contentType of ["application/merge-patch+json", APPLY]) {
      const reply = await call(url, "PATCH", `${PROXY}?fieldManager=proto`, { body, contentType });
      expect(reply.status).toBe(400);
      expect(reply.body.message).not.toContain("not valid JSON");
      expect(reply.body.message).toContain(
        'a "__proto__" or "constructor.prototype" key at spec.telemetry.accessLogs.json.__proto__',
      );
    }
    const created = await call(url, "POST", pathOf("Proxy"), {
      body: '{"metadata": {"name": "p2", "constructor": {"prototype": {}}}}',
    });
    expect(created.body.message).toContain("key at metadata.constructor;");
  }, 60_000);

  it("still says malformed JSON is malformed", async () => {
    const url = await spawnServer().url;
    const reply = await call(url, "POST", pathOf("Proxy"), { body: '{"__proto__": ' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("not valid JSON");
  }, 60_000);
});
