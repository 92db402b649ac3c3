import { describe, expect, it } from "vitest";
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
    // What a client reads back carries the placeholder; writing it back keeps the stored key.
    const replaced = await call(url, "PUT", pathOf("Proxy", "edge"), { body: created.body });
    expect(replaced.status).toBe(200);
  }, 60_000);
});
