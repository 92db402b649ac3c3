import { expect } from "vitest";
import { KINDS } from "../../../sdk/schema";
import { VALID_SPECS } from "../../api/fixtures";
import { manifest, pathOf } from "../../helpers/server";
import type { Backend } from "./backends";
import { countedTest, unique } from "./helpers";

/**
 * Owner references and delete propagation: the local server's garbage collector and kube-controller-
 * manager's do the same for a Service and a ServiceRevision it controls. kube-apiserver's collector works
 * apart from the delete (a watch, then its own requests), so what it does is polled for.
 */

/** Generous: kube-controller-manager acts within a second. */
const DEADLINE = { timeout: 60_000, interval: 100 };
const HOLD = "example.dev/conformance";

export function propagationTests(backend: () => Backend): void {
  const test = countedTest(backend);
  const status = async (server: Backend, path: string) => (await server.call("GET", path)).status;

  /**
   * A Service and a ServiceRevision it controls, made here as the controller makes them (no controller
   * runs against kube-apiserver; the local server's mints revisions of its own, which these tests ignore).
   */
  const owned = async (server: Backend, metadata: Record<string, unknown> = {}) => {
    const name = unique("owner");
    const service = await server.call("POST", pathOf("Service"), {
      body: manifest("Service", name, VALID_SPECS.Service),
    });
    expect(service.status, service.text).toBe(201);
    const owner = {
      apiVersion: KINDS.Service.apiVersion,
      kind: "Service",
      name,
      uid: service.body.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    const revision = unique("owned");
    const created = await server.call("POST", pathOf("ServiceRevision"), {
      body: manifest("ServiceRevision", revision, VALID_SPECS.ServiceRevision, {
        ownerReferences: [owner],
        ...metadata,
      }),
    });
    expect(created.status, created.text).toBe(201);
    return { service: pathOf("Service", name), revision: pathOf("ServiceRevision", revision) };
  };

  test("Background propagation: a Service's revision goes after it", async (server) => {
    const { service, revision } = await owned(server);
    const reply = await server.call("DELETE", service);
    expect(reply.status, reply.text).toBe(200);
    expect(await status(server, service)).toBe(404);
    await expect.poll(() => status(server, revision), DEADLINE).toBe(404);
  });

  test("Foreground propagation: the Service is held, marked foregroundDeletion, until its revision is gone", async (server) => {
    // A finalizer holds the revision, so the Service's wait can be seen.
    const { service, revision } = await owned(server, { finalizers: [HOLD] });
    const reply = await server.call("DELETE", `${service}?propagationPolicy=Foreground`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      finalizers: ["foregroundDeletion"],
    });
    await expect
      .poll(async () => (await server.call("GET", revision)).body.metadata?.deletionTimestamp, DEADLINE)
      .toEqual(expect.any(String));
    const held = await server.call("GET", service);
    expect(held.status).toBe(200);
    expect(held.body.metadata.finalizers).toEqual(["foregroundDeletion"]);

    const released = await server.call("PATCH", revision, {
      body: { metadata: { finalizers: null } },
      contentType: "application/merge-patch+json",
    });
    expect(released.status, released.text).toBe(200);
    await expect.poll(() => status(server, revision), DEADLINE).toBe(404);
    await expect.poll(() => status(server, service), DEADLINE).toBe(404);
  });

  test("Orphan propagation: the Service goes, its revision stays without the owner reference", async (server) => {
    const { service, revision } = await owned(server);
    const reply = await server.call("DELETE", `${service}?propagationPolicy=Orphan`);
    expect(reply.status, reply.text).toBe(200);
    await expect.poll(() => status(server, service), DEADLINE).toBe(404);
    const orphan = await server.call("GET", revision);
    expect(orphan.status).toBe(200);
    expect(orphan.body.metadata.ownerReferences).toBeUndefined();
    expect(orphan.body.metadata.deletionTimestamp).toBeUndefined();
  });
}
