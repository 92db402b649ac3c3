import { describe, expect, it, vi } from "vitest";
import { call, manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

const sinks = (keyData: string) => ({ telemetry: { thirdPartySinks: { vendorAlphaLogs: { keyData } } } });
const FIELD = "spec.telemetry.thirdPartySinks.vendorAlphaLogs.keyData";

describe("APIKey.keyData, on the server as a process", () => {
  it("takes base64 only, says so without echoing the value, and keeps a key written back as its placeholder", async () => {
    const url = await spawnServer().url;
    const refused = await call(url, "POST", pathOf("Proxy"), {
      body: manifest("Proxy", "edge", sinks("sk live key!")),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes).toEqual([
      expect.objectContaining({ field: FIELD, message: expect.stringContaining("is not base64") }),
    ]);
    expect(refused.text).not.toContain("sk live key!");

    const key = Buffer.from("sk live key!").toString("base64");
    const created = await call(url, "POST", pathOf("Proxy"), { body: manifest("Proxy", "edge", sinks(key)) });
    expect(created.status).toBe(201);
    // What a client reads back carries the placeholder; writing it back keeps the stored key. The embedded
    // controller writes the Proxy's status after the create, so the write is read-modify-write until it lands
    // on the current resourceVersion, as client-go's RetryOnConflict does.
    await vi.waitFor(
      async () => {
        const current = await call(url, "GET", pathOf("Proxy", "edge"));
        expect(current.body.spec.telemetry.thirdPartySinks.vendorAlphaLogs.keyData).not.toBe(key);
        const replaced = await call(url, "PUT", pathOf("Proxy", "edge"), { body: current.body });
        expect(replaced.status).toBe(200);
      },
      { timeout: 20_000, interval: 100 },
    );
  }, 60_000);
});
