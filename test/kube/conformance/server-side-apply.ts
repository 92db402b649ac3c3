import { expect } from "vitest";
import { type Json, manifest, pathOf } from "../../helpers/server";
import type { Backend } from "./backends";
import { APPLY, countedTest, unique } from "./helpers";

/**
 * Server-side apply of the object: managed fields, conflicts between managers, force, preconditions.
 * `backend()` is the server of the enclosing describe.
 */
export function serverSideApplyTests(backend: () => Backend): void {
  const test = countedTest(backend);

  test("server-side apply: managed fields, a conflict between two managers (409), then force", async (server) => {
    const name = unique("apply");
    const apply = (manager: string, owner: string, force = false) =>
      server.call("PATCH", `${pathOf("Proxy", name)}?fieldManager=${manager}${force ? "&force=true" : ""}`, {
        body: manifest("Proxy", name, {}, { labels: { owner } }),
        contentType: APPLY,
      });
    const first = await apply("alpha", "alpha");
    expect(first.status, first.text).toBe(201);
    expect(first.body.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: "alpha", operation: "Apply", fieldsType: "FieldsV1" }),
    );
    const conflict = await apply("beta", "beta");
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "alpha": .metadata.labels.owner',
      details: {
        causes: [
          {
            reason: "FieldManagerConflict",
            message: 'conflict with "alpha"',
            field: ".metadata.labels.owner",
          },
        ],
      },
    });
    const forced = await apply("beta", "beta", true);
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.metadata.labels).toEqual({ owner: "beta" });
    const managers = forced.body.metadata.managedFields.map((entry: Json) => entry.manager);
    expect(managers).toContain("beta");
  });

  test("server-side apply naming a uid no object has is 409 and creates nothing", async (server) => {
    const name = unique("apply-uid");
    const uid = "00000000-0000-0000-0000-000000000001";
    const applied = await server.call("PATCH", `${pathOf("Proxy", name)}?fieldManager=main`, {
      body: { ...manifest("Proxy", name, {}), metadata: { name, uid } },
      contentType: APPLY,
    });
    expect(applied.status, applied.text).toBe(409);
    expect(applied.body).toMatchObject({
      reason: "Conflict",
      message: `Operation cannot be fulfilled on proxies.core.example.dev "${name}": uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
      details: { name, group: "core.example.dev", kind: "proxies" },
    });
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });
}
