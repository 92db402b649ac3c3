import { describe, expect, it } from "vitest";
import { call, manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

const SHUTDOWN = { drainTimeout: "10s", minimumDrainTime: "30s" };

describe("the field manager of a write that names none, on the server as a process", () => {
  it('is "unknown" without fieldManager and without a User-Agent (or one with no product name)', async () => {
    const url = await spawnServer().url;
    const managerOf = async (name: string, headers: Record<string, string>) => {
      const body = manifest("Proxy", name, { shutdown: SHUTDOWN });
      const reply = await call(url, "POST", pathOf("Proxy"), { body, headers });
      expect(reply.status).toBe(201);
      return reply.body.metadata.managedFields.map((entry: { manager: string }) => entry.manager);
    };
    // undici sends no User-Agent unless told.
    expect(await managerOf("bare", {})).toEqual(["unknown"]);
    expect(await managerOf("slash", { "user-agent": "/1.0" })).toEqual(["unknown"]);
    expect(await managerOf("curl", { "user-agent": "curl/8.5.0" })).toEqual(["curl"]);

    // A later apply that changes its field names it in the conflict.
    const apply = manifest("Proxy", "bare", { shutdown: { ...SHUTDOWN, drainTimeout: "20s" } });
    const conflict = await call(url, "PATCH", `${pathOf("Proxy", "bare")}?fieldManager=ssa`, {
      body: apply,
      contentType: "application/apply-patch+yaml",
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toContain('conflict with "unknown"');
  }, 60_000);
});
