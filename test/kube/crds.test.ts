import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { type KubeEnv, startKube } from "../../kube/env";
import {
  applyDefaults,
  KIND_NAMES,
  KINDS,
  type KindName,
  PLACEHOLDERS,
  SECRET_ANNOTATION,
} from "../../sdk/schema";
import { SECRET_SPECS, SECRETS, VALID_SPECS } from "../api/fixtures";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const REPO = path.resolve(__dirname, "../..");
const run = promisify(execFile);
const APPLY = "application/apply-patch+yaml";

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

describe("the CRD files, as users apply them", () => {
  let kube: KubeEnv;
  beforeAll(async () => {
    kube = await startKube();
  });
  afterAll(() => kube?.close());

  it("`kubectl apply -f deploy/crds/` on a fresh kube-apiserver: accepted and Established", async () => {
    const kubectl = (...args: string[]) => run("kubectl", [`--kubeconfig=${kube.kubeconfig}`, ...args]);
    await kubectl("apply", "-f", path.join(REPO, "deploy/crds/"));
    const names = KIND_NAMES.map((kind) => `crd/${KINDS[kind].plural}.${KINDS[kind].group}`);
    const { stdout } = await kubectl("wait", "--for=condition=Established", "--timeout=60s", ...names);
    expect(stdout.trim().split("\n")).toHaveLength(KIND_NAMES.length);
  });
});

/** The CRDs installed with the admission webhook (startKubeApi), as a deployment runs them. */
describe("the CRDs generated from the schema, on a real kube-apiserver", () => {
  let kube: KubeApi;
  let local: TestServer;
  const kubectl = (...args: string[]) => run("kubectl", [`--kubeconfig=${kube.kubeconfig}`, ...args]);
  const call = async (
    method: "GET" | "POST" | "PUT" | "PATCH",
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
    [kube, local] = await Promise.all([startKubeApi({ drainProxies: false }), startTestServer()]);
  });
  afterAll(async () => {
    await Promise.all([kube?.close(), local?.close()]);
  });

  it("are Established", async () => {
    const names = KIND_NAMES.map((kind) => `crd/${KINDS[kind].plural}.${KINDS[kind].group}`);
    const { stdout } = await kubectl("wait", "--for=condition=Established", "--timeout=60s", ...names);
    expect(stdout.trim().split("\n")).toHaveLength(KIND_NAMES.length);
  });

  it.each(KIND_NAMES)(
    "a valid %s is created and read back with the local server's defaults, conditional ones too",
    async (kind) => {
      const body = manifest(kind, `valid-${kind.toLowerCase()}`, VALID_SPECS[kind]);
      const created = await call("POST", pathOf(kind), body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await call("GET", pathOf(kind, body.metadata.name));
      expect(read.status).toBe(200);

      const onLocal = await local.call("POST", pathOf(kind), { body });
      expect(onLocal.status).toBe(201);
      expect(onLocal.body.spec).toEqual(applyDefaults(kind, VALID_SPECS[kind]));
      // Defaults that depend on other fields (backend mode when neither backend nor filter is set): the
      // CRD's per-field defaults cannot say them; the mutating webhook fills them from the same schema.
      expect(created.body.spec).toEqual(onLocal.body.spec);
      expect(read.body.spec).toEqual(onLocal.body.spec);
    },
  );

  it.each(KIND_NAMES)(
    "a %s with secret values: the same spec, placeholders in place of the values, on both servers",
    async (kind) => {
      const body = manifest(kind, `secret-${kind.toLowerCase()}`, SECRET_SPECS[kind]);
      const created = await call("POST", pathOf(kind), body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await call("GET", pathOf(kind, body.metadata.name));
      const onLocal = await local.call("POST", pathOf(kind), { body });
      expect(onLocal.status).toBe(201);
      expect(created.body.spec).toEqual(onLocal.body.spec);
      expect(read.body.spec).toEqual(onLocal.body.spec);
      const text = JSON.stringify([created.body, read.body, onLocal.body]);
      for (const value of Object.values(SECRETS)) expect(text).not.toContain(value);
      const spec = JSON.stringify(read.body.spec);
      expect(Object.values(PLACEHOLDERS).some((placeholder) => spec.includes(placeholder))).toBe(true);

      // Each names the Secret its controller reads the values from: minted by the webhook on kube-apiserver,
      // served from the store by the local server; the names differ, the annotations do not.
      const annotations = (object: Json) => Object.keys(object.metadata.annotations ?? {}).sort();
      expect(annotations(read.body)).toEqual(annotations(onLocal.body));
      expect(annotations(read.body)).toContain(SECRET_ANNOTATION);
    },
  );

  it.each(KIND_NAMES)(
    "a %s with secret values written back with its placeholders, and a dry run: accepted by both",
    async (kind) => {
      const name = `secret-back-${kind.toLowerCase()}`;
      const body = manifest(kind, name, SECRET_SPECS[kind]);
      expect((await call("POST", pathOf(kind), body)).status).toBe(201);
      expect((await local.call("POST", pathOf(kind), { body })).status).toBe(201);
      // What a client read (placeholders in place of the values), labelled and sent back whole.
      const [onKube, onLocal] = await Promise.all([
        call("GET", pathOf(kind, name)),
        local.call("GET", pathOf(kind, name)),
      ]);
      for (const read of [onKube, onLocal]) read.body.metadata.labels = { written: "back" };
      const replaced = await Promise.all([
        call("PUT", pathOf(kind, name), onKube.body),
        local.call("PUT", pathOf(kind, name), { body: onLocal.body }),
      ]);
      expect(replaced.map(({ status }) => status)).toEqual([200, 200]);
      expect(replaced[0]?.body.spec).toEqual(replaced[1]?.body.spec);

      const dryRun = `${pathOf(kind)}?dryRun=All`;
      const dry = manifest(kind, `dry-${kind.toLowerCase()}`, SECRET_SPECS[kind]);
      const tried = await Promise.all([call("POST", dryRun, dry), local.call("POST", dryRun, { body: dry })]);
      expect(tried.map(({ status }) => status)).toEqual([201, 201]);
      expect(tried[0]?.body.spec).toEqual(tried[1]?.body.spec);
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
