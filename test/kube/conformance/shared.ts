import { expect, it } from "vitest";
import { KIND_NAMES, KINDS } from "../../../sdk/schema";
import { discoveryEntries } from "../../helpers/discovery";
import { type Json, manifest, pathOf } from "../../helpers/server";
import { type Backend, LOCAL_HISTORY_SIZE } from "./backends";
import { DIFFERENCES } from "./differences";

/** A failure Status as both servers send it: the fixed envelope around `fields`. */
const failure = (fields: Record<string, unknown>) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  ...fields,
});

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const APPLY = "application/apply-patch+yaml";

let counter = 0;
/** A name no other test uses, so tests need no reset between them. */
export const unique = (base: string) => `${base}-${++counter}`;

/** What Kubernetes-behaviour tests are defined, per backend, and how many ran (printed at the end). */
export const RUN_COUNT = new Map<string, number>();

/** An `it` on the enclosing describe's backend that counts itself for the per-backend total. */
export function countedTest(backend: () => Backend) {
  return (name: string, body: (server: Backend) => Promise<void>) =>
    it(name, async () => {
      const server = backend();
      await body(server);
      RUN_COUNT.set(server.name, (RUN_COUNT.get(server.name) ?? 0) + 1);
    });
}

/**
 * The Kubernetes-behaviour tests both servers must pass. `backend()` is the server of the enclosing describe.
 */
export function sharedTests(backend: () => Backend): void {
  const test = countedTest(backend);
  const proxies = pathOf("Proxy");
  const create = async (server: Backend, name: string, labels: Record<string, string> = {}) => {
    const reply = await server.call("POST", proxies, { body: manifest("Proxy", name, {}, { labels }) });
    expect(reply.status, reply.text).toBe(201);
    return reply.body;
  };
  const patch = async (server: Backend, name: string, body: unknown, type = MERGE) =>
    server.call("PATCH", pathOf("Proxy", name), { body, contentType: type });

  test("discovery lists each group, its version and each kind with the same verbs", async (server) => {
    const groups = (await server.call("GET", "/apis")).body.groups.map((group: Json) => group.name);
    for (const kind of KIND_NAMES) {
      const { group, version, plural } = KINDS[kind];
      expect(groups).toContain(group);
      const one = await server.call("GET", `/apis/${group}`);
      expect(one.body).toMatchObject({
        kind: "APIGroup",
        name: group,
        preferredVersion: { groupVersion: `${group}/${version}`, version },
      });
      const list = (await server.call("GET", `/apis/${group}/${version}`)).body;
      expect(list).toMatchObject({ kind: "APIResourceList", groupVersion: `${group}/${version}` });
      const expected = discoveryEntries(kind);
      expect(list.resources.find((resource: Json) => resource.name === plural)).toEqual(expected.resource);
      const names = list.resources.map((resource: Json) => resource.name);
      expect(names.indexOf(`${plural}/status`)).toBe(names.indexOf(plural) + 1);
      expect(list.resources.find((resource: Json) => resource.name === `${plural}/status`)).toEqual(
        expected.status,
      );
    }
  });

  test("aggregated discovery lists each kind as kube-apiserver lists a CRD", async (server) => {
    const type = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    const reply = await server.call("GET", "/apis", { headers: { accept: `${type},application/json` } });
    expect(reply.headers["content-type"]).toBe(type);
    const { items } = JSON.parse(reply.text);
    for (const kind of KIND_NAMES) {
      const { group, version, plural } = KINDS[kind];
      const entry = items
        .find((item: Json) => item.metadata.name === group)
        ?.versions.find((each: Json) => each.version === version);
      expect(entry?.freshness).toBe("Current");
      const resource = entry.resources.find((each: Json) => each.resource === plural);
      expect(resource).toMatchObject({
        responseKind: { group, version, kind },
        scope: "Cluster",
        singularResource: kind.toLowerCase(),
        verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
      });
      expect(resource.subresources).toEqual([
        { subresource: "status", responseKind: { group, version, kind }, verbs: ["get", "patch", "update"] },
      ]);
    }
  });

  test("create 201, get 200, create again 409 AlreadyExists, get a missing one 404", async (server) => {
    const name = unique("crud");
    const created = await create(server, name);
    expect(created.metadata).toMatchObject({
      name,
      resourceVersion: expect.any(String),
      uid: expect.any(String),
    });
    const got = await server.call("GET", pathOf("Proxy", name));
    expect(got.status).toBe(200);
    expect(got.body.metadata.uid).toBe(created.metadata.uid);
    const again = await server.call("POST", proxies, { body: manifest("Proxy", name, {}) });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(
      failure({
        reason: "AlreadyExists",
        code: 409,
        message: `proxies.core.example.dev "${name}" already exists`,
        details: { name, group: "core.example.dev", kind: "proxies" },
      }),
    );
    const missing = await server.call("GET", pathOf("Proxy", `${name}-missing`));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(
      failure({
        reason: "NotFound",
        code: 404,
        message: `proxies.core.example.dev "${name}-missing" not found`,
        details: { name: `${name}-missing`, group: "core.example.dev", kind: "proxies" },
      }),
    );
  });

  test("replace 200, and 409 Conflict on a stale resourceVersion", async (server) => {
    const name = unique("replace");
    const created = await create(server, name);
    const replaced = await server.call("PUT", pathOf("Proxy", name), {
      body: { ...created, metadata: { ...created.metadata, labels: { step: "two" } } },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.metadata.labels).toEqual({ step: "two" });
    const stale = await server.call("PUT", pathOf("Proxy", name), {
      body: { ...created, metadata: { ...created.metadata, labels: { step: "three" } } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      reason: "Conflict",
      code: 409,
      message: `Operation cannot be fulfilled on proxies.core.example.dev "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    });
  });

  test("merge patch and JSON patch 200; a missing object 404", async (server) => {
    const name = unique("patch");
    await create(server, name);
    const merged = await patch(server, name, { metadata: { labels: { a: "1" } } });
    expect(merged.status, merged.text).toBe(200);
    const json = await patch(
      server,
      name,
      [{ op: "add", path: "/metadata/labels/b", value: "2" }],
      JSON_PATCH,
    );
    expect(json.status, json.text).toBe(200);
    expect(json.body.metadata.labels).toEqual({ a: "1", b: "2" });
    const missing = await patch(server, `${name}-missing`, { metadata: { labels: { a: "1" } } });
    expect(missing.status).toBe(404);
  });

  const statusOf = (name: string) => `${pathOf("Proxy", name)}/status`;
  /** The managedFields entry of a manager's writes to the status subresource, fields and all. */
  const statusEntry = (object: Json, manager: string, operation: string) =>
    object.metadata.managedFields.find(
      (entry: Json) =>
        entry.manager === manager && entry.operation === operation && entry.subresource === "status",
    );

  test("status subresource: GET answers the object; a missing object is 404 on GET, PATCH and PUT", async (server) => {
    const name = unique("status-get");
    const created = await create(server, name);
    const got = await server.call("GET", statusOf(name));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);
    const missing = `${name}-missing`;
    const notFound = failure({
      reason: "NotFound",
      code: 404,
      message: `proxies.core.example.dev "${missing}" not found`,
      details: { name: missing, group: "core.example.dev", kind: "proxies" },
    });
    expect((await server.call("GET", statusOf(missing))).body).toEqual(notFound);
    const patched = await server.call("PATCH", statusOf(missing), {
      body: { status: { phase: "Ready" } },
      contentType: MERGE,
    });
    expect(patched.body).toEqual(notFound);
    const put = await server.call("PUT", statusOf(missing), {
      body: { ...manifest("Proxy", missing, {}), metadata: { name: missing, resourceVersion: "1" } },
    });
    expect(put.status).toBe(404);
    // An apply to the status subresource never creates the object.
    const applied = await server.call("PATCH", `${statusOf(missing)}?fieldManager=operator`, {
      body: { ...manifest("Proxy", missing, {}), status: { phase: "Ready" } },
      contentType: APPLY,
    });
    expect(applied.status).toBe(404);
    expect((await server.call("GET", pathOf("Proxy", missing))).status).toBe(404);
  });

  test("status subresource: a merge patch stores only the status; generation stays, resourceVersion moves", async (server) => {
    const name = unique("status-merge");
    const created = await create(server, name, { team: "edge" });
    const reply = await server.call("PATCH", `${statusOf(name)}?fieldManager=operator`, {
      body: {
        metadata: { labels: { step: "two" } },
        spec: { provider: "aws" },
        status: { phase: "Ready", nested: { ready: true } },
      },
      contentType: MERGE,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.status).toEqual({ phase: "Ready", nested: { ready: true } });
    expect(reply.body.spec).toEqual(created.spec);
    expect(reply.body.metadata.labels).toEqual({ team: "edge" });
    expect(reply.body.metadata.generation).toBe(created.metadata.generation);
    expect(reply.body.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    // kube-apiserver's status strategy resets only spec in managedFields: the labels sent are recorded too.
    expect(statusEntry(reply.body, "operator", "Update")).toEqual({
      manager: "operator",
      operation: "Update",
      apiVersion: "core.example.dev/v1alpha2",
      time: expect.any(String),
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:metadata": { "f:labels": { "f:step": {} } },
        "f:status": { ".": {}, "f:nested": { ".": {}, "f:ready": {} }, "f:phase": {} },
      },
      subresource: "status",
    });
    const got = await server.call("GET", pathOf("Proxy", name));
    expect(got.body).toEqual(reply.body);
  });

  test("status subresource: PUT replaces the status whole; a stale resourceVersion is 409", async (server) => {
    const name = unique("status-put");
    const created = await create(server, name);
    const first = await server.call("PUT", statusOf(name), {
      body: { ...created, spec: { provider: "aws" }, status: { phase: "Ready", extra: 1 } },
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.status).toEqual({ phase: "Ready", extra: 1 });
    expect(first.body.spec).toEqual(created.spec);
    const second = await server.call("PUT", statusOf(name), {
      body: { ...first.body, status: { phase: "Done" } },
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body.status).toEqual({ phase: "Done" });
    expect(second.body.metadata.generation).toBe(created.metadata.generation);
    const stale = await server.call("PUT", statusOf(name), {
      body: { ...first.body, status: { phase: "Old" } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(
      failure({
        reason: "Conflict",
        code: 409,
        message: `Operation cannot be fulfilled on proxies.core.example.dev "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        details: { name, group: "core.example.dev", kind: "proxies" },
      }),
    );
    const stalePatch = await server.call("PATCH", statusOf(name), {
      body: { metadata: { resourceVersion: created.metadata.resourceVersion }, status: { phase: "Old" } },
      contentType: MERGE,
    });
    expect(stalePatch.status).toBe(409);
    // A dry run answers the status it would store, at the stored version, and stores nothing.
    const dry = await server.call("PATCH", `${statusOf(name)}?dryRun=All`, {
      body: { status: { phase: "Dry" } },
      contentType: MERGE,
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.status).toEqual({ phase: "Dry" });
    expect(dry.body.metadata.resourceVersion).toBe(second.body.metadata.resourceVersion);
    expect((await server.call("GET", pathOf("Proxy", name))).body.status).toEqual({ phase: "Done" });
  });

  test("status subresource: apply merges the status, ignores spec and labels, records an Apply entry", async (server) => {
    const name = unique("status-apply");
    const created = await create(server, name);
    const apply = (manager: string, status: Json, force = false) =>
      server.call("PATCH", `${statusOf(name)}?fieldManager=${manager}${force ? "&force=true" : ""}`, {
        body: {
          apiVersion: "core.example.dev/v1alpha2",
          kind: "Proxy",
          metadata: { name },
          spec: { provider: "aws" },
          status,
        },
        contentType: APPLY,
      });
    const first = await apply("alpha", { phase: "Ready" });
    expect(first.status, first.text).toBe(200);
    expect(first.body.status).toEqual({ phase: "Ready" });
    expect(first.body.spec).toEqual(created.spec);
    expect(first.body.metadata.generation).toBe(created.metadata.generation);
    expect(statusEntry(first.body, "alpha", "Apply")).toEqual({
      manager: "alpha",
      operation: "Apply",
      apiVersion: "core.example.dev/v1alpha2",
      time: expect.any(String),
      fieldsType: "FieldsV1",
      fieldsV1: { "f:status": { "f:phase": {} } },
      subresource: "status",
    });
    const conflict = await apply("beta", { phase: "Gone" });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      reason: "Conflict",
      message: 'Apply failed with 1 conflict: conflict with "alpha" with subresource "status": .status.phase',
      details: {
        causes: [
          {
            reason: "FieldManagerConflict",
            message: 'conflict with "alpha" with subresource "status"',
            field: ".status.phase",
          },
        ],
      },
    });
    const forced = await apply("beta", { phase: "Gone" }, true);
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.status).toEqual({ phase: "Gone" });
  });

  test("status subresource: a status that is not an object is 422 Invalid at field status", async (server) => {
    const name = unique("status-invalid");
    await create(server, name);
    const reply = await server.call("PATCH", statusOf(name), {
      body: { status: "Ready" },
      contentType: MERGE,
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      reason: "Invalid",
      code: 422,
      details: { name, group: "core.example.dev", kind: "Proxy" },
    });
    expect(reply.body.details.causes).toEqual([
      { reason: "FieldValueTypeInvalid", field: "status", message: expect.any(String) },
    ]);
  });

  test("a write to the object ignores status: create, PUT, merge patch and apply", async (server) => {
    const name = unique("status-main");
    const created = await server.call("POST", proxies, {
      body: { ...manifest("Proxy", name, {}), status: { phase: "Hacked" } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).not.toHaveProperty("status");
    const written = await server.call("PATCH", statusOf(name), {
      body: { status: { phase: "Ready" } },
      contentType: MERGE,
    });
    const put = await server.call("PUT", pathOf("Proxy", name), {
      body: {
        ...written.body,
        metadata: { ...written.body.metadata, labels: { step: "put" } },
        status: { phase: "Hacked" },
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.metadata.labels).toEqual({ step: "put" });
    expect(put.body.status).toEqual({ phase: "Ready" });
    const merged = await patch(server, name, {
      metadata: { labels: { step: "merge" } },
      status: { phase: "Hacked" },
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.status).toEqual({ phase: "Ready" });
    const applied = await server.call("PATCH", `${pathOf("Proxy", name)}?fieldManager=main`, {
      body: { ...manifest("Proxy", name, {}, { labels: { by: "apply" } }), status: { phase: "Hacked" } },
      contentType: APPLY,
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toEqual({ phase: "Ready" });
    const main = applied.body.metadata.managedFields.find((entry: Json) => entry.manager === "main");
    expect(main.fieldsV1).not.toHaveProperty("f:status");
    expect((await server.call("GET", pathOf("Proxy", name))).body.status).toEqual({ phase: "Ready" });
  });

  test("422 Invalid names the field in causes[].field", async (server) => {
    const name = unique("invalid");
    const reply = await server.call("POST", proxies, { body: manifest("Proxy", name, { provider: 42 }) });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ kind: "Status", reason: "Invalid", code: 422 });
    expect(reply.body.details).toMatchObject({ name, group: "core.example.dev", kind: "Proxy" });
    const cause = reply.body.details.causes.find((each: Json) => each.field === "spec.provider");
    // The same words on both: kube-apiserver's admission webhook runs the local server's admission code.
    expect(cause?.message.startsWith("spec.provider: ")).toBe(true);
  });

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

  test("dryRun=All answers what would be stored and stores nothing", async (server) => {
    const name = unique("dry");
    const reply = await server.call("POST", `${proxies}?dryRun=All`, { body: manifest("Proxy", name, {}) });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.metadata.name).toBe(name);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });

  test("watch resumes from a resourceVersion: exactly the changes after it", async (server) => {
    const test = unique("resume");
    const first = await create(server, `${test}-a`, { test });
    await create(server, `${test}-b`, { test });
    await patch(server, `${test}-a`, { metadata: { labels: { step: "two" } } });
    const gone = await server.call("DELETE", `${pathOf("Proxy", `${test}-b`)}?gracePeriodSeconds=0`);
    expect(gone.status, gone.text).toBe(200);
    const stream = await server.watch(
      `${proxies}?watch=true&labelSelector=test=${test}&resourceVersion=${first.metadata.resourceVersion}`,
    );
    await stream.next((event) => event.type === "DELETED");
    stream.close();
    expect(stream.events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual([
      `ADDED ${test}-b`,
      `MODIFIED ${test}-a`,
      `DELETED ${test}-b`,
    ]);
  });

  test("a watch that allows bookmarks gets one, with only a resourceVersion, before its timeout", async (server) => {
    const name = unique("bookmark");
    const created = await create(server, name);
    // kube-apiserver sends it 2 s before the deadline; the local server at the deadline.
    const stream = await server.watch(
      `${proxies}?watch=true&labelSelector=test=${name}&resourceVersion=${created.metadata.resourceVersion}&allowWatchBookmarks=true&timeoutSeconds=5`,
    );
    // A write elsewhere moves the server's version on: kube-apiserver's watch cache learns its version from
    // events (etcd 3.4 sends it no progress notifications).
    await create(server, `${name}-other`);
    const bookmark = await stream.next((event) => event.type === "BOOKMARK", { timeoutMs: 10_000 });
    stream.close();
    expect(bookmark.object).toMatchObject({ kind: "Proxy", apiVersion: "core.example.dev/v1alpha2" });
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
      Number(created.metadata.resourceVersion),
    );
    expect(bookmark.object.spec).toBeUndefined();
  });

  test("a watch from a resourceVersion older than the kept history: ERROR 410 Expired", async (server) => {
    const name = unique("expired");
    await create(server, name);
    // More changes than the local server keeps; kube-apiserver's history starts after its CRDs were made.
    for (let i = 0; i <= LOCAL_HISTORY_SIZE; i++)
      await patch(server, name, { metadata: { labels: { i: `${i}` } } });
    const stream = await server.watch(`${proxies}?watch=true&resourceVersion=1`);
    await stream.ended;
    expect(stream.status).toBe(200);
    expect(stream.events).toEqual([
      {
        type: "ERROR",
        object: failure({
          message: expect.stringMatching(/^too old resource version: 1 \(\d+\)$/),
          reason: "Expired",
          code: 410,
        }),
      },
    ]);
    // A recent version still resumes.
    const list = await server.call("GET", proxies);
    const recent = await server.watch(
      `${proxies}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    await patch(server, name, { metadata: { labels: { i: "last" } } });
    expect((await recent.next()).type).toBe("MODIFIED");
    recent.close();
  });

  test("a list at an older exact resourceVersion with changes since", async (server) => {
    const name = unique("exact");
    const created = await create(server, name);
    await patch(server, name, { metadata: { labels: { step: "two" } } });
    const version = created.metadata.resourceVersion;
    const reply = await server.call(
      "GET",
      `${proxies}?resourceVersion=${version}&resourceVersionMatch=Exact`,
    );
    if (DIFFERENCES[server.name].exactListOfOlderVersion === "served") {
      expect(reply.status).toBe(200);
      expect(reply.body.metadata.resourceVersion).toBe(version);
    } else {
      expect(reply.status).toBe(410);
      expect(reply.body).toEqual(
        failure({
          reason: "Expired",
          message: "The resourceVersion for the provided list is too old.",
          code: 410,
        }),
      );
    }
  });

  test("a failure without details (a 400) has no details field", async (server) => {
    const reply = await server.call("GET", `${proxies}?labelSelector=${encodeURIComponent("a in (")}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      failure({
        reason: "BadRequest",
        message: expect.any(String),
        code: 400,
      }),
    );
  });

  test("label selectors and the metadata.name field selector", async (server) => {
    const test = unique("select");
    await create(server, `${test}-a`, { test, tier: "front" });
    await create(server, `${test}-b`, { test, tier: "back" });
    await create(server, `${test}-c`, { test });
    const names = async (query: string) =>
      (await server.call("GET", `${proxies}?${query}`)).body.items.map((item: Json) => item.metadata.name);
    expect(await names(`labelSelector=test=${test},tier=front`)).toEqual([`${test}-a`]);
    expect(await names(`labelSelector=test=${test},tier in (front,back)`)).toEqual([
      `${test}-a`,
      `${test}-b`,
    ]);
    expect(await names(`labelSelector=test=${test},!tier`)).toEqual([`${test}-c`]);
    expect(await names(`fieldSelector=metadata.name=${test}-b`)).toEqual([`${test}-b`]);
    expect(await names(`labelSelector=test=${test}&fieldSelector=metadata.name!=${test}-b`)).toEqual([
      `${test}-a`,
      `${test}-c`,
    ]);
  });

  test("a list is <Kind>List at a resourceVersion; delete-collection by label answers the deleted items", async (server) => {
    const test = unique("collection");
    await create(server, `${test}-a`, { test });
    await create(server, `${test}-b`, { test });
    const list = await server.call("GET", `${proxies}?labelSelector=test=${test}`);
    expect(list.body).toMatchObject({
      kind: "ProxyList",
      apiVersion: "core.example.dev/v1alpha2",
      metadata: { resourceVersion: expect.stringMatching(/^[1-9]\d*$/) },
    });
    const removed = await server.call("DELETE", `${proxies}?labelSelector=test=${test}&gracePeriodSeconds=0`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.kind).toBe("ProxyList");
    expect(removed.body.items.map((item: Json) => item.metadata.name).sort()).toEqual([
      `${test}-a`,
      `${test}-b`,
    ]);
    expect((await server.call("GET", `${proxies}?labelSelector=test=${test}`)).body.items).toEqual([]);
  });

  test("DeleteOptions preconditions: a wrong uid or resourceVersion is 409, the right ones delete", async (server) => {
    const name = unique("preconditions");
    const created = await create(server, name);
    const { uid, resourceVersion } = created.metadata;
    const remove = (preconditions: Json) =>
      server.call("DELETE", pathOf("Proxy", name), {
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions, gracePeriodSeconds: 0 },
      });
    const wrongUid = await remove({ uid: "00000000-0000-0000-0000-000000000000" });
    expect(wrongUid.status).toBe(409);
    const conflict = `Operation cannot be fulfilled on Proxy.core.example.dev "${name}"`;
    expect(wrongUid.body).toMatchObject({
      reason: "Conflict",
      message: `${conflict}: the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
      details: { name, group: "core.example.dev", kind: "Proxy" },
    });
    const wrongVersion = await remove({ resourceVersion: "1" });
    expect(wrongVersion.status).toBe(409);
    expect(wrongVersion.body).toMatchObject({
      reason: "Conflict",
      message: `${conflict}: the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    });
    const removed = await remove({ uid, resourceVersion });
    expect(removed.status, removed.text).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
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

  test("a delete that removes at once answers a Success Status", async (server) => {
    const name = unique("delete");
    const created = await create(server, name);
    const reply = await server.call("DELETE", `${pathOf("Proxy", name)}?gracePeriodSeconds=0`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Success",
      details: { name, group: "core.example.dev", kind: "proxies", uid: created.metadata.uid },
    });
  });

  test("a delete held by a finalizer answers 200 and the marked object; it goes when the finalizer is removed", async (server) => {
    const name = unique("finalized");
    const reply = await server.call("POST", proxies, {
      body: manifest("Proxy", name, {}, { finalizers: ["example.dev/conformance"] }),
    });
    expect(reply.status, reply.text).toBe(201);
    const path = `${pathOf("Proxy", name)}?gracePeriodSeconds=0`;
    const dryRun = await server.call("DELETE", `${path}&dryRun=All`);
    expect(dryRun.status, dryRun.text).toBe(200);
    expect(dryRun.body).toMatchObject({
      kind: "Proxy",
      metadata: { name, deletionTimestamp: expect.any(String) },
    });
    const marked = await server.call("DELETE", path);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body).toMatchObject({
      kind: "Proxy",
      metadata: { name, deletionTimestamp: expect.any(String) },
    });
    const again = await server.call("DELETE", path);
    expect(again.status, again.text).toBe(200);
    expect(again.body.metadata).toMatchObject({
      uid: marked.body.metadata.uid,
      deletionTimestamp: marked.body.metadata.deletionTimestamp,
    });
    expect((await patch(server, name, { metadata: { finalizers: null } })).status).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });

  test("a delete held by a finalizer answers 202 for the deprecated orphanDependents=false", async (server) => {
    const name = unique("orphan-false");
    const reply = await server.call("POST", proxies, {
      body: manifest("Proxy", name, {}, { finalizers: ["example.dev/conformance"] }),
    });
    expect(reply.status, reply.text).toBe(201);
    const marked = await server.call(
      "DELETE",
      `${pathOf("Proxy", name)}?gracePeriodSeconds=0&orphanDependents=false`,
    );
    expect(marked.status, marked.text).toBe(202);
    expect(marked.body).toMatchObject({
      kind: "Proxy",
      metadata: { name, deletionTimestamp: expect.any(String) },
    });
    const inBody = await server.call("DELETE", pathOf("Proxy", name), {
      body: { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, orphanDependents: false },
    });
    expect(inBody.status, inBody.text).toBe(202);
    expect((await patch(server, name, { metadata: { finalizers: null } })).status).toBe(200);
    expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
    const other = unique("orphan-false");
    await create(server, other);
    const gone = await server.call(
      "DELETE",
      `${pathOf("Proxy", other)}?gracePeriodSeconds=0&orphanDependents=false`,
    );
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toMatchObject({ kind: "Status", status: "Success" });
  });

  test("a Proxy deleted with a grace period and no finalizer goes at once (the drain is a finalizer)", async (server) => {
    const name = unique("grace");
    await create(server, name);
    const reply = await server.call("DELETE", `${pathOf("Proxy", name)}?gracePeriodSeconds=30`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ kind: "Status", status: "Success" });
  });

  test("a Proxy a finalizer holds is marked with a grace of 0, whatever grace the delete asks", async (server) => {
    const name = unique("held");
    const made = await server.call("POST", proxies, {
      body: manifest("Proxy", name, {}, { finalizers: ["example.dev/hold"] }),
    });
    expect(made.status, made.text).toBe(201);
    const marked = await server.call("DELETE", `${pathOf("Proxy", name)}?gracePeriodSeconds=30`);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      deletionGracePeriodSeconds: 0,
      finalizers: ["example.dev/hold"],
    });
    const released = await patch(server, name, { metadata: { finalizers: null } });
    expect(released.status, released.text).toBe(200);
    await expect.poll(async () => (await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
  });
}
