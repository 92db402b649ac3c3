import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import mergePatch from "json-merge-patch";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crdFile } from "../../deploy/crds";
import { type KubeEnv, startKube } from "../../kube/env";
import { KIND_NAMES, KINDS, type KindName } from "../../sdk/schema";
import { CEL_RULES } from "../../sdk/schema/cel";
import { formatPath } from "../../sdk/schema/violation";
import { VALID_SPECS } from "../api/fixtures";
import { type Json, manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const REPO = path.resolve(__dirname, "../..");
const MERGE = "application/merge-patch+json";

interface Answer {
  status: number;
  body: Json;
}

/** Each CEL rule's example, over a valid object: one per rule and place, named after its rule. */
const CASES = CEL_RULES.map((cel, index) => ({
  cel,
  kind: cel.kind,
  field: `${formatPath(cel.at)}${cel.fieldPath ?? ""}`,
  name: `${cel.id}-${index}`,
}));

/** The schema's rules said in CEL: what the local server refuses, the real one refuses at the same field. */
describe("the CEL rules of the CRDs on both servers", () => {
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

  it.each(CASES)("$name at $field ($kind): refused by both servers", async ({ cel, field, name }) => {
    const { kind, example } = cel;
    const spec = mergePatch.apply(structuredClone(VALID_SPECS[kind]), example.previous ?? {});
    const answers =
      example.previous === undefined
        ? await both("POST", pathOf(kind), manifest(kind, name, mergePatch.apply(spec, example.self)))
        : await (async () => {
            await create(kind, name, spec);
            return both("PATCH", pathOf(kind, name), { spec: example.self });
          })();
    const [onKube, onLocal] = refusals(answers);
    expect([onKube?.status, onLocal?.status]).toEqual([422, 422]);
    // The local server's message is "<field>: <the schema's words>"; the CRD carries the same words.
    const local = onLocal?.causes.find((cause: Json) => cause.field === field);
    expect(local?.message.startsWith(`${field}: `)).toBe(true);
    const message = local.message.slice(`${field}: `.length);
    expect(onKube?.causes).toContainEqual({ field, message: expect.stringContaining(message) });
  });

  it("other changes pass on both: a Service's history limit, a ServiceRevision's labels", async () => {
    await create("Service", "changed", VALID_SPECS.Service);
    const service = await both("PATCH", pathOf("Service", "changed"), { spec: { revisionHistoryLimit: 3 } });
    expect(service.map(({ status }) => status)).toEqual([200, 200]);
    await create("ServiceRevision", "labelled", VALID_SPECS.ServiceRevision);
    const labels = { metadata: { labels: { team: "a" } } };
    const revision = await both("PATCH", pathOf("ServiceRevision", "labelled"), labels);
    expect(revision.map(({ status }) => status)).toEqual([200, 200]);
  });
});
