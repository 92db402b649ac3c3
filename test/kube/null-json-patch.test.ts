// Issue 47, "any client": pulumi-kubernetes 4.24.1 updates an object with a JSON patch of its field
// managers first (pkg/await/await.go, fixCSAFieldManagers), and when no manager needs a fix it sends the
// body `null` (fluxcd/pkg/ssa's PatchReplaceFieldsManagers returns a nil list, marshalled as null).
// kube-apiserver takes `null` as a JSON patch of no operations; the local server refused it ("a JSON patch
// must be an array of operations"), which failed every update of the peer. Both now answer 200, unchanged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { manifest } from "../helpers/server";

const JSON_PATCH = "application/json-patch+json";

describe.each(BACKENDS)("a JSON patch of null, on the %s server", (backendName) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await startBackend(backendName);
    await backend.client.proxies.create(manifest("Proxy", "null-patch", { provider: "cloud" }) as never);
  }, 300_000);
  afterAll(async () => {
    await backend?.close();
  });

  const path = "/apis/core.example.dev/v1alpha2/proxies/null-patch";

  it("is no operation: 200 and the object unchanged", async () => {
    const before = await backend.call("GET", path);
    const reply = await backend.call("PATCH", path, "null", JSON_PATCH);
    expect(reply.status, reply.text).toBe(200);
    expect(JSON.parse(reply.text).spec).toEqual(JSON.parse(before.text).spec);
  });

  it("an object is still no JSON patch: 400 on both", async () => {
    const reply = await backend.call("PATCH", path, "{}", JSON_PATCH);
    expect(reply.status).toBe(400);
  });
});
