import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crdFile } from "../../kube/crds";
import { type KubeEnv, startKube } from "../../kube/env";
import { applyDefaults, KIND_NAMES, KINDS, type KindName } from "../../sdk/schema";
import { VALID_SPECS } from "../api/fixtures";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const REPO = path.resolve(__dirname, "../..");
const run = promisify(execFile);
const APPLY = "application/apply-patch+yaml";

/**
 * Defaults that depend on other fields (zod `fill`): a CRD's defaults are per field and cannot say "backend
 * when neither backend nor filter is set", so the real server leaves these out until a mutating webhook
 * fills them. Listed here so a new difference fails the test.
 */
const CONDITIONAL_DEFAULTS: Record<KindName, readonly string[][]> = {
  Proxy: [],
  Service: [["template", "spec", "backend"]],
  ServiceRevision: [["backend"]],
};

/** Structurally invalid specs (a wrong type, a value outside an enum, a missing required field). */
const INVALID: readonly { kind: KindName; spec: Json; field: string }[] = [
  { kind: "Proxy", spec: { provider: 42 }, field: "spec.provider" },
  {
    kind: "Service",
    spec: { ...VALID_SPECS.Service, template: { spec: { backend: { protocol: "http3" } } } },
    field: "spec.template.spec.backend.protocol",
  },
  { kind: "ServiceRevision", spec: { runtime: { compatibilityDate: "2024-09-01" } }, field: "spec.bundle" },
  // Section 7: every Service names a compatibility date, also one whose template sets no runtime.
  {
    kind: "Service",
    spec: { ...VALID_SPECS.Service, template: { spec: {} } },
    field: "spec.template.spec.runtime.compatibilityDate",
  },
  {
    kind: "Service",
    spec: { ...VALID_SPECS.Service, template: { spec: { runtime: { timeout: "10s" } } } },
    field: "spec.template.spec.runtime.compatibilityDate",
  },
];

function without(value: Json, paths: readonly string[][]): Json {
  const copy = structuredClone(value);
  for (const keys of paths) {
    const parent = keys.slice(0, -1).reduce((object, key) => object?.[key], copy);
    if (parent) delete parent[keys.at(-1) as string];
  }
  return copy;
}

describe("the CRDs generated from the schema, on a real kube-apiserver", () => {
  let kube: KubeEnv;
  let local: TestServer;
  const kubectl = (...args: string[]) => run("kubectl", [`--kubeconfig=${kube.kubeconfig}`, ...args]);
  const call = async (
    method: "GET" | "POST" | "PATCH",
    url: string,
    body?: unknown,
    contentType?: string,
  ) => {
    const response = await request(`${kube.url}${url}`, {
      method,
      dispatcher: kube.dispatcher,
      headers: { authorization: `Bearer ${kube.token}`, "content-type": contentType ?? "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: (await response.body.json()) as Json };
  };

  beforeAll(async () => {
    [kube, local] = await Promise.all([startKube(), startTestServer()]);
    await kubectl("apply", ...KIND_NAMES.flatMap((kind) => ["-f", path.join(REPO, crdFile(kind))]));
  });
  afterAll(async () => {
    await Promise.all([kube?.close(), local?.close()]);
  });

  it("are accepted and become Established", async () => {
    const names = KIND_NAMES.map((kind) => `crd/${KINDS[kind].plural}.${KINDS[kind].group}`);
    const { stdout } = await kubectl("wait", "--for=condition=Established", "--timeout=60s", ...names);
    expect(stdout.trim().split("\n")).toHaveLength(KIND_NAMES.length);
  });

  it.each(KIND_NAMES)(
    "a valid %s is created and read back with the local server's defaults",
    async (kind) => {
      const body = manifest(kind, `valid-${kind.toLowerCase()}`, VALID_SPECS[kind]);
      const created = await call("POST", pathOf(kind), body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await call("GET", pathOf(kind, body.metadata.name));
      expect(read.status).toBe(200);

      const onLocal = await local.call("POST", pathOf(kind), { body });
      expect(onLocal.status).toBe(201);
      expect(onLocal.body.spec).toEqual(applyDefaults(kind, VALID_SPECS[kind]));
      expect(read.body.spec).toEqual(without(onLocal.body.spec, CONDITIONAL_DEFAULTS[kind]));
    },
  );

  it.each(INVALID)("an invalid $kind is refused at $field by both servers", async ({ kind, spec, field }) => {
    const body = manifest(kind, `invalid-${kind.toLowerCase()}`, spec);
    const refused = await call("POST", pathOf(kind), body);
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes.map((cause: Json) => cause.field)).toContain(field);
    const onLocal = await local.call("POST", pathOf(kind), { body });
    expect(onLocal.status).toBe(422);
    expect(onLocal.body.details.causes.map((cause: Json) => cause.field)).toContain(field);
  });

  it("merges env by name in server-side apply on both servers, each manager owning its item", async () => {
    const applied = pathOf("Service", "applied");
    const apply = async (manager: string, env: Json) => {
      const spec = structuredClone(VALID_SPECS.Service) as Json;
      spec.template.spec.env = env;
      const body = manifest("Service", "applied", spec);
      const url = `${applied}?fieldManager=${manager}`;
      const answers = [
        call("PATCH", url, body, APPLY),
        local.call("PATCH", url, { body, contentType: APPLY }),
      ];
      return (await Promise.all(answers)).map(({ status }) => status);
    };
    expect(await apply("one", [{ name: "A", value: "1" }])).toEqual([201, 201]);
    // An atomic list would be one manager's whole: the second apply would conflict with the first.
    expect(await apply("two", [{ name: "B", value: "2" }])).toEqual([200, 200]);
    const read = await Promise.all([call("GET", applied), local.call("GET", applied)]);
    for (const { body } of read) {
      expect(body.spec.template.spec.env).toEqual([
        { name: "A", value: "1" },
        { name: "B", value: "2" },
      ]);
    }
  });

  it.each(KIND_NAMES)("serves the local server's Table columns for %s", async (kind) => {
    const accept = { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" };
    const [onKube, onLocal] = await Promise.all([
      request(`${kube.url}${pathOf(kind)}`, {
        dispatcher: kube.dispatcher,
        headers: { authorization: `Bearer ${kube.token}`, ...accept },
      }).then(async (response) => (await response.body.json()) as Json),
      local.call("GET", pathOf(kind), { headers: accept }).then(({ body }) => body),
    ]);
    // Types aside: a CRD's Age is a date that Kubernetes prints as an age, the local server's a string.
    const columns = (table: Json) =>
      table.columnDefinitions.map(({ name, description, priority }: Json) => ({
        name,
        description,
        priority,
      }));
    expect(columns(onKube).slice(1)).toEqual(columns(onLocal).slice(1));
    expect(columns(onKube)[0].name).toBe("Name");
  });
});
