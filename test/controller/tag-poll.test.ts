// Moving tags against a real registry: the tag poll mints a revision pinned to the tag's new digest,
// status.resolvedBundle follows it, an unmoved tag writes nothing, a failed poll keeps the revision, and a
// restart alone still does not move a Service (the poll does).
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceSpecInput } from "../../sdk/schema";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer, useDurableServers } from "../helpers/server";
import { eventually, ServiceApi } from "./api";

const PATH = "team/app";
const POLL_MS = 200;

let registry: Registry;
let server: TestServer;
let api: ServiceApi;

beforeAll(async () => {
  registry = await startRegistry();
  server = await startTestServer({ tagPollIntervalMs: POLL_MS });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
});

function fromTag(repo: string, tag: string): ServiceSpecInput {
  return {
    source: { oci: { repo, tag } },
    template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
  };
}

/** Waits until the Service's latest revision runs `digest`; returns the status. */
async function runs(target: ServiceApi, name: string, digest: string) {
  return eventually(`Service ${name} to run ${digest}`, async () => {
    const service = await target.get(name);
    const latest = service.status?.latestRevision;
    if (typeof latest !== "string") return undefined;
    const revision = await target.revision(latest).catch(() => undefined);
    return revision?.spec.bundle.digest === digest ? service.status : undefined;
  });
}

describe("the tag poll", () => {
  it("mints a revision pinned to the new digest when the tag is pushed again", async () => {
    const first = await pushArtifact(registry, { path: PATH, tag: "moving", content: "moving v1" });
    await api.create("moving", fromTag(registry.repo(PATH), "moving"));
    const before = await runs(api, "moving", first);
    expect(before.resolvedBundle).toMatchObject({ tag: "moving", digest: first });

    const pushed = Date.now();
    const second = await pushArtifact(registry, { path: PATH, tag: "moving", content: "moving v2" });
    const after = await runs(api, "moving", second);
    console.log(
      `tag re-pushed -> revision minted for the new digest: ${Date.now() - pushed} ms (poll ${POLL_MS} ms)`,
    );
    expect(after.latestRevision).not.toBe(before.latestRevision);
    expect(after.resolvedBundle).toMatchObject({ tag: "moving", digest: second });
    expect(Date.parse(after.resolvedBundle.resolvedAt)).toBeGreaterThanOrEqual(
      Date.parse(before.resolvedBundle.resolvedAt),
    );
    expect(after.conditions.find((c: { type: string }) => c.type === "Accepted")).toMatchObject({
      status: "True",
      reason: "Minted",
    });
    // The earlier revision stays in the history, still pinned to the old digest.
    expect((await api.revision(before.latestRevision)).spec.bundle.digest).toBe(first);
  });

  it("writes nothing while the tag stays where it is", async () => {
    const digest = await pushArtifact(registry, { path: PATH, tag: "still", content: "still v1" });
    await api.create("still", fromTag(registry.repo(PATH), "still"));
    await runs(api, "still", digest);
    await server.idle();
    const { resourceVersion } = (await api.get("still")).metadata;
    await delay(POLL_MS * 5);
    expect((await api.get("still")).metadata.resourceVersion).toBe(resourceVersion);
  });

  it("mints once a tag that did not exist is pushed", async () => {
    await api.create("later", fromTag(registry.repo(PATH), "later"));
    await api.reason("later", "Accepted", "BundleResolutionFailed");
    const digest = await pushArtifact(registry, { path: PATH, tag: "later", content: "later v1" });
    const status = await runs(api, "later", digest);
    expect(status.resolvedBundle).toMatchObject({ tag: "later", digest });
  });
});

describe("a poll that cannot reach the registry", () => {
  it("keeps the Service on its revision and says so in the log", async () => {
    const gone = await startRegistry();
    const digest = await pushArtifact(gone, { path: PATH, tag: "v1", content: "gone v1" });
    await api.create("gone", fromTag(gone.repo(PATH), "v1"));
    const before = await runs(api, "gone", digest);
    await gone.stop();
    await eventually("a failed tag poll in the log", async () =>
      server.logs.some((line) => line.includes("tag poll could not resolve") && line.includes('"gone"'))
        ? true
        : undefined,
    );
    const after = (await api.get("gone")).status;
    expect(after).toEqual(before);
  });
});

describe("after a restart", () => {
  const durableServer = useDurableServers("tag-poll");

  it("stays on its revision until the poll finds the tag moved", async () => {
    const { server: firstServer, dataDir } = await durableServer({ tagPollIntervalMs: 0 });
    const firstApi = new ServiceApi(firstServer);
    const first = await pushArtifact(registry, { path: PATH, tag: "restart", content: "restart v1" });
    await firstApi.create("restart", fromTag(registry.repo(PATH), "restart"));
    const before = await runs(firstApi, "restart", first);
    await firstServer.close();

    const second = await pushArtifact(registry, { path: PATH, tag: "restart", content: "restart v2" });
    const restarted = await durableServer({ storage: { dir: dataDir }, tagPollIntervalMs: POLL_MS });
    const restartedApi = new ServiceApi(restarted.server);
    const after = await runs(restartedApi, "restart", second);
    // The restart's own sync minted nothing: the only revision minted since comes after the poll's find.
    const logs = restarted.server.logs;
    const moved = logs.findIndex((line) => line.includes("tag moved") && line.includes('"restart"'));
    const minted = logs.findIndex((line) => line.includes("minted revision") && line.includes('"restart"'));
    expect(moved).toBeGreaterThanOrEqual(0);
    expect(minted).toBeGreaterThan(moved);
    expect(after.latestRevision).not.toBe(before.latestRevision);
    expect(after.resolvedBundle).toMatchObject({ tag: "restart", digest: second });
  });
});
