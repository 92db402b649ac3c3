import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crdFile } from "../../kube/crds";
import { type KubeEnv, startKube } from "../../kube/env";
import { KIND_NAMES, KINDS, type KindName } from "../../sdk/schema";
import { VALID_SPECS } from "../api/fixtures";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const REPO = path.resolve(__dirname, "../..");
const MERGE = "application/merge-patch+json";

interface Answer {
  status: number;
  body: Json;
}

/** The schema's change rules as CEL transition rules: an update one server refuses, the other refuses too. */
describe("the change rules on both servers", () => {
  let kube: KubeEnv;
  let local: TestServer;

  /** The same request to both servers: the real one first, then the local one. */
  const both = async (method: "POST" | "PATCH", url: string, body: unknown): Promise<Answer[]> => {
    const contentType = method === "PATCH" ? MERGE : "application/json";
    const onKube = await request(`${kube.url}${url}`, {
      method,
      dispatcher: kube.dispatcher,
      headers: { authorization: `Bearer ${kube.token}`, "content-type": contentType },
      body: JSON.stringify(body),
    });
    const onLocal = await local.call(method, url, { body, contentType });
    return [
      { status: onKube.statusCode, body: await onKube.body.json() },
      { status: onLocal.status, body: onLocal.body },
    ];
  };
  const create = async (kind: KindName, name: string, spec: Json) => {
    const answers = await both("POST", pathOf(kind), manifest(kind, name, spec));
    expect(answers.map(({ status }) => status)).toEqual([201, 201]);
  };
  /** Each server's 422 causes, as field and message. */
  const refusals = (answers: Answer[]) =>
    answers.map(({ status, body }) => ({
      status,
      causes: (body.details?.causes ?? []).map((cause: Json) => ({
        field: cause.field,
        message: cause.message,
      })),
    }));

  beforeAll(async () => {
    [kube, local] = await Promise.all([startKube(), startTestServer()]);
    const files = KIND_NAMES.flatMap((kind) => ["-f", path.join(REPO, crdFile(kind))]);
    const kubectl = (...args: string[]) =>
      promisify(execFile)("kubectl", [`--kubeconfig=${kube.kubeconfig}`, ...args]);
    await kubectl("apply", ...files);
    const names = KIND_NAMES.map((kind) => `crd/${KINDS[kind].plural}.${KINDS[kind].group}`);
    await kubectl("wait", "--for=condition=Established", "--timeout=60s", ...names);
  });
  afterAll(async () => {
    await Promise.all([kube?.close(), local?.close()]);
  });

  it("service-mode-immutable: a Service in backend mode cannot switch to filter mode", async () => {
    await create("Service", "backend-mode", VALID_SPECS.Service);
    // backend: null removes the backend the local server filled in; the real server has none to remove.
    const patch = { spec: { template: { spec: { filter: {}, backend: null } } } };
    const answers = refusals(await both("PATCH", pathOf("Service", "backend-mode"), patch));
    const message = "the Service runs in backend mode and cannot switch to filter mode";
    for (const { status, causes } of answers) {
      expect(status).toBe(422);
      expect(causes).toEqual([
        { field: "spec.template.spec.filter", message: expect.stringContaining(message) },
      ]);
    }
  });

  it("service-mode-immutable: a Service in filter mode cannot switch to backend mode", async () => {
    const spec = structuredClone(VALID_SPECS.Service) as Json;
    spec.template.spec.filter = {};
    await create("Service", "filter-mode", spec);
    const patch = { spec: { template: { spec: { filter: null } } } };
    const answers = refusals(await both("PATCH", pathOf("Service", "filter-mode"), patch));
    const message = "the Service runs in filter mode and cannot switch to backend mode";
    for (const { status, causes } of answers) {
      expect(status).toBe(422);
      expect(causes).toEqual([
        { field: "spec.template.spec.backend", message: expect.stringContaining(message) },
      ]);
    }
  });

  it("service-mode-immutable: other changes to a Service pass on both", async () => {
    const patch = { spec: { revisionHistoryLimit: 3 } };
    const answers = await both("PATCH", pathOf("Service", "backend-mode"), patch);
    expect(answers.map(({ status }) => status)).toEqual([200, 200]);
  });

  it("revision-spec-immutable: a ServiceRevision's spec cannot change, its labels can", async () => {
    await create("ServiceRevision", "pinned", VALID_SPECS.ServiceRevision);
    const answers = refusals(
      await both("PATCH", pathOf("ServiceRevision", "pinned"), { spec: { runtime: { timeout: "10s" } } }),
    );
    for (const { status, causes } of answers) {
      expect(status).toBe(422);
      expect(causes).toEqual([
        { field: "spec", message: expect.stringContaining("a ServiceRevision is immutable") },
      ]);
    }
    const labelled = await both("PATCH", pathOf("ServiceRevision", "pinned"), {
      metadata: { labels: { team: "a" } },
    });
    expect(labelled.map(({ status }) => status)).toEqual([200, 200]);
  });
});
