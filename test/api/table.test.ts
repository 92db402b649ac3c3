import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KindName } from "../../sdk/schema";
import { age } from "../../sdk/schema/printer-columns";
import { negotiateTable } from "../../server/http/table-negotiation";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";
import { type OpenWatch, openWatch } from "../helpers/watch";
import { DIGEST, KINDS_UNDER_TEST, SECRET_SPECS, SECRETS, VALID_SPECS } from "./fixtures";

// Server-side printing for kubectl get: a meta.k8s.io Table when the Accept header asks for one.

/** What kubectl get sends. */
const KUBECTL_ACCEPT =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

const COLUMNS: Record<KindName, string[]> = {
  Proxy: ["Name", "Provider", "Ready", "Age"],
  Service: ["Name", "Latest", "Live", "Ready", "Accepted", "Age", "Reason"],
  ServiceRevision: ["Name", "Service", "Digest", "Age"],
};

describe("Table output", () => {
  let server: TestServer;
  const watches: OpenWatch[] = [];
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    for (const watch of watches.splice(0)) watch.close();
    await server?.close();
  });

  const create = async (kind: KindName, name: string, spec = VALID_SPECS[kind]) => {
    const reply = await server.call("POST", pathOf(kind), { body: manifest(kind, name, spec) });
    expect(reply.status, reply.text).toBe(201);
    return reply.body;
  };
  const table = (path: string, accept = KUBECTL_ACCEPT) => server.call("GET", path, { headers: { accept } });

  it.each(KINDS_UNDER_TEST)("lists %ss as a meta.k8s.io/v1 Table with the kind's columns", async (kind) => {
    await create(kind, "a");
    await server.idle();
    const reply = await table(pathOf(kind));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json;as=Table;v=v1;g=meta.k8s.io;charset=utf-8");
    expect(reply.body).toMatchObject({ kind: "Table", apiVersion: "meta.k8s.io/v1" });
    expect(reply.body.metadata.resourceVersion).toBe(server.store.resourceVersion());
    expect(reply.body.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(
      COLUMNS[kind],
    );
    for (const column of reply.body.columnDefinitions) {
      expect(column).toEqual({
        name: expect.any(String),
        type: "string",
        format: column.name === "Name" ? "name" : "",
        description: expect.any(String),
        priority: column.name === "Reason" ? 1 : 0,
      });
    }
    const row = reply.body.rows.find((entry: { cells: string[] }) => entry.cells[0] === "a");
    expect(row.cells).toHaveLength(COLUMNS[kind].length);
    expect(row.cells[COLUMNS[kind].indexOf("Age")]).toMatch(/^\d+s$/);
    expect(row.object).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: expect.objectContaining({ name: "a", uid: expect.any(String) }),
    });
  });

  it("fills each kind's columns from the object", async () => {
    await create("Proxy", "edge", { provider: "aws" });
    await create("Service", "web");
    await server.idle();
    const proxies = await table(pathOf("Proxy"));
    // No drain here (the test server's default), so no controller reports the Proxy's readiness.
    expect(proxies.body.rows[0].cells.slice(0, 3)).toEqual(["edge", "aws", "<none>"]);

    const services = await table(pathOf("Service"));
    const [name, latest, live, ready, accepted, , reason] = services.body.rows[0].cells;
    expect(name).toBe("web");
    expect(latest).toMatch(/^web-[0-9a-f]{10}$/);
    expect(live).toBe(latest);
    expect(ready).toBe("True");
    expect(accepted).toBe("True");
    expect(reason).toBe("Ready");

    const revisions = await table(pathOf("ServiceRevision"));
    expect(revisions.body.rows[0].cells.slice(0, 3)).toEqual([latest, "web", DIGEST.slice(0, 19)]);
    // A revision without an owner and a Service without status show <none>.
    await create("ServiceRevision", "loose");
    const loose = (await table(pathOf("ServiceRevision", "loose"))).body.rows[0].cells;
    expect(loose.slice(0, 3)).toEqual(["loose", "<none>", DIGEST.slice(0, 19)]);
  });

  it("answers a get with a one-row Table, and the v1beta1 form when only that is asked for", async () => {
    await create("Proxy", "edge");
    const one = await table(pathOf("Proxy", "edge"));
    expect(one.body.rows).toHaveLength(1);
    expect(one.body.metadata.resourceVersion).toBe(one.body.rows[0].object.metadata.resourceVersion);
    const beta = await table(pathOf("Proxy"), "application/json;as=Table;v=v1beta1;g=meta.k8s.io");
    expect(beta.body.apiVersion).toBe("meta.k8s.io/v1beta1");
    expect(beta.body.rows[0].object.apiVersion).toBe("meta.k8s.io/v1beta1");
    expect(beta.headers["content-type"]).toBe(
      "application/json;as=Table;v=v1beta1;g=meta.k8s.io;charset=utf-8",
    );
  });

  it("includes the object as asked: None, Metadata (the default) or Object (secrets redacted)", async () => {
    await create("Service", "web", SECRET_SPECS.Service);
    const none = await table(`${pathOf("Service")}?includeObject=None`);
    expect(none.body.rows[0].object).toBeUndefined();
    const metadata = await table(`${pathOf("Service")}?includeObject=Metadata`);
    expect(metadata.body.rows[0].object.spec).toBeUndefined();
    const object = await table(`${pathOf("Service")}?includeObject=Object`);
    expect(object.body.rows[0].object).toMatchObject({ kind: "Service", spec: { source: { oci: {} } } });
    for (const value of Object.values(SECRETS)) expect(object.text).not.toContain(value);
    const bad = await table(`${pathOf("Service")}?includeObject=Everything`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("includeObject");
  });

  it("pages like a list", async () => {
    for (const name of ["a", "b", "c"]) await create("Proxy", name);
    const first = await table(`${pathOf("Proxy")}?limit=2`);
    expect(first.body.rows.map((row: { cells: string[] }) => row.cells[0])).toEqual(["a", "b"]);
    expect(first.body.metadata).toMatchObject({ continue: expect.any(String), remainingItemCount: 1 });
    const next = await table(
      `${pathOf("Proxy")}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`,
    );
    expect(next.body.rows.map((row: { cells: string[] }) => row.cells[0])).toEqual(["c"]);
  });

  it("is plain JSON when the Accept header asks for nothing else", async () => {
    await create("Proxy", "a");
    for (const accept of [
      "application/json",
      "*/*",
      "application/json;as=Fancy;v=v1;g=meta.k8s.io,application/json",
    ]) {
      const reply = await table(pathOf("Proxy"), accept);
      expect(reply.body.kind, accept).toBe("ProxyList");
    }
    expect((await server.call("GET", pathOf("Proxy"))).body.kind).toBe("ProxyList");
  });

  it("streams one-row Tables from a watch that asks for them (kubectl get -w)", async () => {
    await create("Proxy", "a");
    const stream = await openWatch(server.url, `${pathOf("Proxy")}?watch=true`, { accept: KUBECTL_ACCEPT });
    watches.push(stream);
    const added = await stream.next();
    expect(added.type).toBe("ADDED");
    expect(added.object).toMatchObject({ kind: "Table", apiVersion: "meta.k8s.io/v1" });
    expect(added.object.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(
      COLUMNS.Proxy,
    );
    expect(added.object.rows).toHaveLength(1);
    expect(added.object.rows[0].cells[0]).toBe("a");
    await create("Proxy", "b");
    const next = await stream.next((event) => event.object.rows?.[0]?.cells[0] === "b");
    expect(next.type).toBe("ADDED");
    expect(next.object.metadata.resourceVersion).toBe(next.object.rows[0].object.metadata.resourceVersion);
  });
});

describe("negotiateTable", () => {
  it("takes the first media range it can serve", () => {
    expect(negotiateTable(KUBECTL_ACCEPT)).toBe("v1");
    expect(
      negotiateTable(
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io",
      ),
    ).toBe("v1beta1");
    expect(negotiateTable("application/json, application/json;as=Table;v=v1;g=meta.k8s.io")).toBeUndefined();
    expect(negotiateTable("application/yaml;as=Table;v=v1;g=meta.k8s.io")).toBeUndefined();
    expect(negotiateTable(undefined)).toBeUndefined();
  });
});

describe("age", () => {
  const now = Date.parse("2024-06-01T00:00:00Z");
  const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();
  it.each([
    [0, "0s"],
    [119, "119s"],
    [120, "2m"],
    [150, "2m30s"],
    [600, "10m"],
    [3 * 3600 - 1, "179m"],
    [3 * 3600, "3h"],
    [5 * 3600 + 30 * 60, "5h30m"],
    [47 * 3600, "47h"],
    [3 * 86400 + 4 * 3600, "3d4h"],
    [10 * 86400, "10d"],
    [(2 * 365 + 10) * 86400, "2y10d"],
    [9 * 365 * 86400, "9y"],
  ])("%i seconds ago is %s, as Kubernetes' HumanDuration", (seconds, text) => {
    expect(age(ago(seconds), now)).toBe(text);
  });
  it("says <invalid> for a time in the future and <none> without one", () => {
    expect(age(ago(-10), now)).toBe("<invalid>");
    expect(age(undefined, now)).toBe("<none>");
  });
});
