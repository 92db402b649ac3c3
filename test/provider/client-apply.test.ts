import { describe, expect, it } from "vitest";
import { type Client, ConflictError, createClient } from "../../sdk/client";
import { rejection, useProxiedServer } from "../helpers/provider";

describe("the client's apply", () => {
  const env = useProxiedServer();
  let client: Client;

  it("applies as a field manager, reports conflicts with their causes, forces, and dry-runs", async () => {
    client = createClient({ baseUrl: env.server.url });
    const created201 = await client.proxies.apply(
      "applied",
      { metadata: { labels: { a: "1" } }, spec: { shutdown: { drainTimeout: "20s" } } },
      { fieldManager: "one" },
    );
    expect(created201.metadata.managedFields?.[0]).toMatchObject({ manager: "one", operation: "Apply" });

    const conflict = await rejection(
      client.proxies.apply(
        "applied",
        { spec: { shutdown: { drainTimeout: "5s" } } },
        { fieldManager: "two" },
      ),
    );
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as unknown as ConflictError).causes).toEqual([
      {
        reason: "FieldManagerConflict",
        message: 'conflict with "one"',
        field: ".spec.shutdown.drainTimeout",
      },
    ]);

    const before = await client.proxies.get("applied");
    const dry = await client.proxies.apply(
      "applied",
      { spec: { shutdown: { drainTimeout: "5s" } } },
      { fieldManager: "two", force: true, dryRun: "All" },
    );
    expect(dry.spec.shutdown.drainTimeout).toBe("5s");
    expect(await client.proxies.get("applied")).toEqual(before);

    const forced = await client.proxies.apply(
      "applied",
      { spec: { shutdown: { drainTimeout: "5s" } } },
      { fieldManager: "two", force: true },
    );
    expect(forced.spec.shutdown.drainTimeout).toBe("5s");
    await client.close();
  });

  it("dry-runs create, replace, patch and delete: answers, stores nothing", async () => {
    client = createClient({ baseUrl: env.server.url });
    const version = env.server.store.resourceVersion();
    const wouldBe = await client.proxies.create({ metadata: { name: "dry" }, spec: {} }, { dryRun: "All" });
    expect(wouldBe.metadata.name).toBe("dry");
    await expect(client.proxies.get("dry")).rejects.toThrow(/not found/i);
    expect(env.server.store.resourceVersion()).toBe(version);

    const real = await client.proxies.create({ metadata: { name: "wet" }, spec: {} }, { fieldManager: "me" });
    expect(real.metadata.managedFields?.[0]).toMatchObject({ manager: "me", operation: "Update" });
    const after = env.server.store.resourceVersion();
    const taken = await rejection(
      client.proxies.create({ metadata: { name: "wet" }, spec: {} }, { dryRun: "All" }),
    );
    expect(taken.message).toContain("AlreadyExists");
    await client.proxies.replace(
      "wet",
      {
        metadata: { resourceVersion: real.metadata.resourceVersion },
        spec: { shutdown: { drainTimeout: "1s" } },
      },
      { dryRun: "All" },
    );
    await client.proxies.patch("wet", { metadata: { labels: { x: "y" } } }, { type: "merge", dryRun: "All" });
    await client.proxies.delete("wet", { dryRun: "All" });
    expect(await client.proxies.get("wet")).toEqual(real);
    expect(env.server.store.resourceVersion()).toBe(after);
    await client.close();
  });
});
