// The controller through the real server: Services written over HTTP, bundles in a real registry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceSpecInput } from "../../sdk/schema";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { ServiceApi } from "./api";

const PATH = "team/app";
const RUNTIME = { compatibilityDate: "2024-09-01" };

let registry: Registry;
let server: TestServer;
let api: ServiceApi;
let v1: string;

beforeAll(async () => {
  registry = await startRegistry();
  v1 = await pushArtifact(registry, { path: PATH, tag: "v1", content: "bundle v1" });
  server = await startTestServer({ egressGateways: ["default", "edge"] });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
});

function tagged(tag: string, extra: Partial<ServiceSpecInput> = {}): ServiceSpecInput {
  return {
    source: { oci: { repo: registry.repo(PATH), tag } },
    template: { spec: { runtime: RUNTIME } },
    ...extra,
  };
}

function pinned(digest: string, extra: Partial<ServiceSpecInput> = {}): ServiceSpecInput {
  return {
    source: { oci: { repo: registry.repo(PATH), digest } },
    template: { spec: { runtime: RUNTIME } },
    ...extra,
  };
}

describe("minting", () => {
  it("mints a revision pinned to the tag's digest when a Service is created", async () => {
    await api.create("create", tagged("v1"));
    const status = await api.reason("create", "Accepted", "Minted");

    const revision = await api.revision(status.latestRevision ?? "");
    expect(revision.spec.bundle).toEqual({ repo: registry.repo(PATH), digest: v1 });
    expect(revision.metadata.labels).toEqual({ "compute.example.dev/service": "create" });
    expect(status.liveRevision).toBe(status.latestRevision);
  });

  it("mints a new revision when the template changes", async () => {
    await api.create("template", tagged("v1"));
    const before = await api.reason("template", "Accepted", "Minted");
    await api.patch("template", { spec: { template: { spec: { env: [{ name: "MODE", value: "fast" }] } } } });

    const after = await api.observed("template");
    expect(after.observedGeneration).toBe(2);
    expect(after.latestRevision).not.toBe(before.latestRevision);
    expect((await api.revision(after.latestRevision ?? "")).spec.env).toEqual([
      { name: "MODE", value: "fast" },
    ]);
    expect((await api.revisions("template")).map((r) => r.metadata.name).sort()).toEqual(
      [before.latestRevision, after.latestRevision].sort(),
    );
  });

  it("mints a new revision when the digest changes", async () => {
    const v2 = await pushArtifact(registry, { path: PATH, tag: "digest-v2", content: "bundle v2" });
    await api.create("digest", pinned(v1));
    const before = await api.observed("digest");
    await api.patch("digest", { spec: { source: { oci: { digest: v2 } } } });

    const after = await api.observed("digest");
    expect(after.latestRevision).not.toBe(before.latestRevision);
    expect((await api.revision(after.latestRevision ?? "")).spec.bundle.digest).toBe(v2);
  });

  it("picks up a moved tag when the Service is written again, not before", async () => {
    await pushArtifact(registry, { path: PATH, tag: "moving", content: "moving 1" });
    await api.create("moving", tagged("moving"));
    const before = await api.reason("moving", "Accepted", "Minted");
    const moved = await pushArtifact(registry, { path: PATH, tag: "moving", content: "moving 2" });
    await api.caughtUp();
    expect((await api.get("moving")).status).toEqual(before);

    await api.patch("moving", { metadata: { annotations: { "example.dev/redeploy": "1" } } });
    await api.caughtUp();
    const after = await api.get("moving");
    expect(after.status.latestRevision).not.toBe(before.latestRevision);
    expect((await api.revision(after.status.latestRevision)).spec.bundle.digest).toBe(moved);
  });

  it("mints nothing and writes no status on a metadata-only change", async () => {
    await api.create("metadata", tagged("v1"));
    const before = await api.reason("metadata", "Accepted", "Minted");
    const labelled = await api.patch("metadata", { metadata: { labels: { team: "blue" } } });
    await api.caughtUp();

    const after = await api.get("metadata");
    expect(after.metadata.resourceVersion).toBe(labelled.metadata.resourceVersion);
    expect(after.status).toEqual(before);
    expect(await api.revisions("metadata")).toHaveLength(1);
  });

  it("reuses the equal revision when a change is undone", async () => {
    await api.create("reuse", tagged("v1"));
    const first = await api.reason("reuse", "Accepted", "Minted");
    await api.patch("reuse", { spec: { template: { spec: { env: [{ name: "A", value: "1" }] } } } });
    await api.observed("reuse");
    await api.patch("reuse", { spec: { template: { spec: { env: null } } } });

    const back = await api.observed("reuse");
    expect(back.observedGeneration).toBe(3);
    expect(back.latestRevision).toBe(first.latestRevision);
    expect(await api.revisions("reuse")).toHaveLength(2);
  });

  it("writes nothing more once converged", async () => {
    await api.create("idempotent", tagged("v1"));
    await api.reason("idempotent", "Accepted", "Minted");
    await api.caughtUp();
    const settled = await api.get("idempotent");
    await api.caughtUp();
    expect((await api.get("idempotent")).metadata.resourceVersion).toBe(settled.metadata.resourceVersion);
  });

  it("refuses a git source outside the allowed URLs (--git-allow) and mints nothing", async () => {
    await api.create("git", {
      source: {
        git: {
          url: "https://git.example.dev/app.git",
          build: { output: { repo: registry.repo(PATH) } },
          triggers: {},
        },
      },
      template: { spec: { runtime: RUNTIME } },
    });
    const status = await api.reason("git", "Accepted", "InvalidSource");
    expect(status.conditions[0]?.message).toContain("--git-allow");
    expect(status).not.toHaveProperty("latestRevision");
    expect(await api.revisions("git")).toEqual([]);
  });
});

describe("liveRevision", () => {
  it("follows a pin to an earlier revision, and the latest again once unpinned", async () => {
    await api.create("pin", tagged("v1"));
    const first = await api.reason("pin", "Accepted", "Minted");
    await api.patch("pin", { spec: { template: { spec: { env: [{ name: "V", value: "2" }] } } } });
    const second = await api.observed("pin");

    await api.patch("pin", { spec: { liveRevision: first.latestRevision } });
    const pinnedStatus = await api.observed("pin");
    expect(pinnedStatus).toMatchObject({
      latestRevision: second.latestRevision,
      liveRevision: first.latestRevision,
    });
    expect(pinnedStatus.conditions.find((c) => c.type === "LiveRevisionReady")).toMatchObject({
      status: "True",
    });

    await api.patch("pin", { spec: { liveRevision: null } });
    const unpinned = await api.observed("pin");
    expect(unpinned).toMatchObject({
      latestRevision: second.latestRevision,
      liveRevision: second.latestRevision,
    });
  });

  it("reports a pin to a missing revision with LiveRevisionReady=False/RevisionNotFound", async () => {
    await api.create("pin-missing", tagged("v1", { liveRevision: "pin-missing-0000000000" }));
    const status = await api.reason("pin-missing", "LiveRevisionReady", "RevisionNotFound");
    expect(status.liveRevision).toBe("pin-missing-0000000000");
    expect(status.conditions.find((c) => c.type === "LiveRevisionReady")?.message).toContain(
      'spec.liveRevision names revision "pin-missing-0000000000", which does not exist',
    );
  });
});

describe("revisionHistoryLimit", () => {
  it("keeps the pinned old revision and the latest, deleting the oldest others", async () => {
    await api.create("history", tagged("v1", { revisionHistoryLimit: 2 }));
    const first = (await api.reason("history", "Accepted", "Minted")).latestRevision;
    await api.patch("history", { spec: { liveRevision: first } });
    const latest: (string | undefined)[] = [];
    for (const value of ["2", "3", "4"]) {
      await api.patch("history", { spec: { template: { spec: { env: [{ name: "V", value }] } } } });
      latest.push((await api.observed("history")).latestRevision);
    }

    const names = (await api.revisions("history")).map((revision) => revision.metadata.name);
    expect(names.sort()).toEqual([first, latest.at(-1)].sort());
    expect(await api.get("history")).toMatchObject({
      status: { liveRevision: first, latestRevision: latest.at(-1) },
    });
  });
});

describe("EgressReady", () => {
  const egressReason = async (name: string, egress: Record<string, unknown> | undefined, reason: string) => {
    await api.create(name, {
      ...tagged("v1"),
      template: { spec: { runtime: RUNTIME, ...(egress && { egress }) } },
    });
    const status = await api.reason(name, "EgressReady", reason);
    return status.conditions.find((c) => c.type === "EgressReady");
  };

  it("is True/Applied through the default gateway without a gatewayRef", async () => {
    expect(await egressReason("egress-default", undefined, "Applied")).toMatchObject({ status: "True" });
  });

  it("is True/Applied for a gateway the server was started with", async () => {
    expect(await egressReason("egress-edge", { gatewayRef: "edge" }, "Applied")).toMatchObject({
      status: "True",
    });
  });

  it("is False/GatewayNotFound for a gatewayRef the server does not know", async () => {
    const condition = await egressReason("egress-missing", { gatewayRef: "nowhere" }, "GatewayNotFound");
    expect(condition).toMatchObject({ status: "False" });
    expect(condition?.message).toContain('"nowhere"');
  });

  it("is False/Disabled when egress is disabled", async () => {
    expect(await egressReason("egress-off", { disabled: true }, "Disabled")).toMatchObject({
      status: "False",
    });
  });

  it("follows a change of the gatewayRef", async () => {
    await egressReason("egress-change", { gatewayRef: "nowhere" }, "GatewayNotFound");
    await api.patch("egress-change", { spec: { template: { spec: { egress: { gatewayRef: "edge" } } } } });
    await api.reason("egress-change", "EgressReady", "Applied");
  });
});

describe("deleting a Service", () => {
  it("deletes its revisions, and the controller mints none again", async () => {
    await api.create("doomed", tagged("v1"));
    await api.reason("doomed", "Accepted", "Minted");
    await api.patch("doomed", { spec: { template: { spec: { env: [{ name: "V", value: "2" }] } } } });
    await api.observed("doomed");
    expect(await api.revisions("doomed")).toHaveLength(2);

    await api.delete("doomed");
    await api.caughtUp();
    expect(await api.revisions("doomed")).toEqual([]);
  });

  it("gives a Service created again under the same name revisions of its own", async () => {
    await api.create("reborn", tagged("v1"));
    const first = await api.reason("reborn", "Accepted", "Minted");
    await api.delete("reborn");
    const again = await api.create("reborn", tagged("v1"));
    const status = await api.reason("reborn", "Accepted", "Minted");

    expect(status.latestRevision).toBe(first.latestRevision);
    const [revision] = await api.revisions("reborn");
    expect(revision.metadata.ownerReferences[0].uid).toBe(again.metadata.uid);
  });
});
