// A server stopped part-way: the controller repairs what it finds when it starts on the same data.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { desiredRevision, pinBundle } from "../../controller/revision";
import type { ServiceSpec } from "../../sdk/schema";
import { type ObjectStore, openStore } from "../../server/storage";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { ServiceApi } from "./api";
import { createService, ociService } from "./fixtures";

const PATH = "team/app";

let registry: Registry;
let dir: string;
let running: TestServer | undefined;

beforeAll(async () => {
  registry = await startRegistry();
});

afterAll(async () => {
  await registry?.stop();
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "exampledev-controller-"));
});

afterEach(async () => {
  await running?.close();
  running = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Writes to the data directory as a server that stopped would have left it. */
function withStoppedServer(write: (store: ObjectStore) => void): void {
  const store = openStore({ dir });
  try {
    write(store);
  } finally {
    store.close();
  }
}

async function start(): Promise<ServiceApi> {
  running = await startTestServer({ storage: { dir } });
  return new ServiceApi(running);
}

async function stop(): Promise<void> {
  await running?.close();
  running = undefined;
}

describe("restart", () => {
  it("mints for a Service stored before the controller could sync it", async () => {
    withStoppedServer((store) => createService(store, "web", ociService()));
    const api = await start();
    const status = await api.reason("web", "Accepted", "Minted");
    expect(await api.revisions("web")).toHaveLength(1);
    expect(status.liveRevision).toBe(status.latestRevision);
  });

  it("reuses the revision minted just before a stop and writes the status it missed", async () => {
    let minted = "";
    withStoppedServer((store) => {
      const service = createService(store, "web", ociService());
      const spec = service.spec as unknown as ServiceSpec;
      const oci = spec.source.oci;
      if (!oci?.digest) throw new Error("the fixture pins a digest");
      const revision = desiredRevision(service, spec.template, pinBundle(oci, oci.digest));
      minted = store.create("ServiceRevision", revision).metadata.name;
    });
    const api = await start();
    const status = await api.reason("web", "Accepted", "Minted");
    expect(status.latestRevision).toBe(minted);
    expect((await api.revisions("web")).map((revision) => revision.metadata.name)).toEqual([minted]);
  });

  it("mints nothing for a Service deleted while the server was down", async () => {
    const api = await start();
    await api.create("web", ociService());
    await api.reason("web", "Accepted", "Minted");
    await stop();
    // A bare store has no garbage collector: the revision stays behind, as after a crash mid-cascade.
    withStoppedServer((store) => store.delete("Service", "web"));

    const restarted = await start();
    await restarted.caughtUp();
    expect(await restarted.revisions("web")).toEqual([]);
  });

  it("does not follow a tag moved while the server was down, and writes nothing on start", async () => {
    await pushArtifact(registry, { path: PATH, tag: "stable", content: "stable 1" });
    const api = await start();
    await api.create("web", ociService({ oci: { repo: registry.repo(PATH), tag: "stable" } }));
    await api.reason("web", "Accepted", "Minted");
    await api.caughtUp();
    const before = await api.get("web");
    await stop();
    await pushArtifact(registry, { path: PATH, tag: "stable", content: "stable 2" });

    const restarted = await start();
    await restarted.caughtUp();
    const after = await restarted.get("web");
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.status).toEqual(before.status);
    expect(await restarted.revisions("web")).toHaveLength(1);
  });

  it("resolves the tag again for a Service whose generation was never observed", async () => {
    const moved = await pushArtifact(registry, { path: PATH, tag: "fresh", content: "fresh 1" });
    withStoppedServer((store) => {
      createService(store, "web", ociService({ oci: { repo: registry.repo(PATH), tag: "fresh" } }));
    });
    const api = await start();
    const status = await api.reason("web", "Accepted", "Minted");
    expect((await api.revision(status.latestRevision ?? "")).spec.bundle.digest).toBe(moved);
  });
});
