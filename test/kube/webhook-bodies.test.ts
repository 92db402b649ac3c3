import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RawClient } from "../../sdk/client/raw";
import { type AdmissionServer, startAdmissionServer } from "../../webhook/server";
import { selfSignedCertificate } from "../helpers/certificates";

/**
 * The webhook over HTTPS refuses, with 400 and a Status, every body that is not an `admission.k8s.io/v1`
 * AdmissionReview of a kind it serves: such a body is the caller's error (it was a 500). None of them
 * reaches the cluster: the client here fails any call it gets.
 */

const untouched: RawClient = {
  call: async () => {
    throw new Error("the webhook called the cluster");
  },
  ok: async () => {
    throw new Error("the webhook called the cluster");
  },
  apply: async () => {
    throw new Error("the webhook called the cluster");
  },
  close: async () => {},
};

const review = (request: Record<string, unknown>, apiVersion = "admission.k8s.io/v1") => ({
  apiVersion,
  kind: "AdmissionReview",
  request: {
    uid: "c0ffee",
    kind: { group: "core.example.dev", version: "v1alpha2", kind: "Proxy" },
    operation: "CREATE",
    object: { apiVersion: "core.example.dev/v1alpha2", kind: "Proxy", metadata: { name: "p" }, spec: {} },
    ...request,
  },
});

const BODIES: [string, string, string][] = [
  ["{}", "application/json", "{}"],
  ["null", "application/json", "null"],
  ["[]", "application/json", "[]"],
  ["a string", "application/json", '"review"'],
  ["an empty body", "application/json", ""],
  ["malformed JSON", "application/json", '{"apiVersion":'],
  ["admission.k8s.io/v1beta1", "application/json", JSON.stringify(review({}, "admission.k8s.io/v1beta1"))],
  [
    "a review of a Pod",
    "application/json",
    JSON.stringify(review({ kind: { group: "", version: "v1", kind: "Pod" } })),
  ],
  ["a review without a request", "application/json", JSON.stringify({ ...review({}), request: undefined })],
  ["a review without a uid", "application/json", JSON.stringify(review({ uid: 7 }))],
  ["a Pod", "application/json", JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } })],
  ["text/plain", "text/plain", JSON.stringify(review({}))],
  ["no content type", "", JSON.stringify(review({}))],
  ["application/yaml", "application/yaml", "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\n"],
];

describe("the admission webhook's refusals of bodies that are not reviews", () => {
  let server: AdmissionServer;
  let dispatcher: Agent;

  beforeAll(async () => {
    const { cert, key } = await selfSignedCertificate();
    server = await startAdmissionServer({
      client: untouched,
      cert,
      key,
      sweep: { intervalMs: 3_600_000, graceMs: 60_000 },
      drainProxies: false,
    });
    dispatcher = new Agent({ connect: { ca: cert } });
  });
  afterAll(async () => {
    await server?.close();
    await dispatcher?.close();
  });

  it.each(BODIES)("answers 400 with a Status for %s", async (_name, contentType, body) => {
    const answer = await request(`${server.url}/admit`, {
      method: "POST",
      dispatcher,
      headers: contentType === "" ? {} : { "content-type": contentType },
      body,
    });
    const text = await answer.body.text();
    expect(answer.statusCode, text).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ kind: "Status", status: "Failure", code: 400 });
  });
});
