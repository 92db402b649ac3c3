// How the local server hands an object's secret values to its controller, as kube-apiserver does with the
// admission webhook's Secrets: each object names a Secret (`SECRET_ANNOTATION`) in `SECRETS_NAMESPACE`, which
// only the controller's identity may read; objects and every other answer carry placeholders.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIND_NAMES, type KindName, SECRET_ANNOTATION, SECRETS_NAMESPACE } from "../../sdk/schema";
import { buildApp } from "../../server";
import { openStore } from "../../server/storage";
import { manifest, pathOf } from "../helpers/server";
import { SECRET_SPECS, SECRETS, VALID_SPECS } from "./fixtures";

const TOKEN = "client-token";
const CONTROLLER_TOKEN = "controller-token";
const secretPath = (name: string, namespace = SECRETS_NAMESPACE) =>
  `/api/v1/namespaces/${namespace}/secrets/${name}`;

let app: FastifyInstance;

beforeAll(async () => {
  app = buildApp({
    store: openStore("memory"),
    token: TOKEN,
    controllerToken: CONTROLLER_TOKEN,
    logLevel: "silent",
  });
  await app.ready();
});
afterAll(() => app.close());

async function call(
  method: "GET" | "POST" | "PUT" | "PATCH",
  url: string,
  { body, token = TOKEN, contentType }: { body?: unknown; token?: string; contentType?: string } = {},
) {
  const answer = await app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { "content-type": contentType ?? "application/json" }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
  return { status: answer.statusCode, body: answer.json(), text: answer.body };
}

const annotationOf = (object: { metadata?: { annotations?: Record<string, string> } }) =>
  object.metadata?.annotations?.[SECRET_ANNOTATION];

describe.each(KIND_NAMES)("a %s's secret values", (kind: KindName) => {
  const name = `secrets-${kind.toLowerCase()}`;
  let secretName: string;

  beforeAll(async () => {
    const created = await call("POST", pathOf(kind), { body: manifest(kind, name, SECRET_SPECS[kind]) });
    expect(created.status).toBe(201);
    secretName = annotationOf(created.body) as string;
  });

  it("are named by the object and read back whole by the controller only", async () => {
    expect(secretName).toMatch(/^[a-z]+\..+-[0-9a-f]{8}$/);
    const secret = await call("GET", secretPath(secretName), { token: CONTROLLER_TOKEN });
    expect(secret.status).toBe(200);
    expect(secret.body).toMatchObject({ apiVersion: "v1", kind: "Secret", immutable: true });
    const values = Object.values(secret.body.data as Record<string, string>).map((value) =>
      Buffer.from(value, "base64").toString(),
    );
    const planted = Object.values(SECRETS).filter((value) =>
      JSON.stringify(SECRET_SPECS[kind]).includes(value),
    );
    expect(values.sort()).toEqual(planted.sort());

    const refused = await call("GET", secretPath(secretName));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ kind: "Status", reason: "Forbidden" });
    for (const value of Object.values(SECRETS)) expect(refused.text).not.toContain(value);
  });

  it("keep their name when a client writes back the placeholders it read", async () => {
    const read = await call("GET", pathOf(kind, name));
    for (const value of Object.values(SECRETS)) expect(read.text).not.toContain(value);
    const labelled = { ...read.body, metadata: { ...read.body.metadata, labels: { touched: "yes" } } };
    const written = await call("PUT", pathOf(kind, name), { body: labelled });
    expect(written.status).toBe(200);
    expect(annotationOf(written.body)).toBe(secretName);
  });

  it("cannot be borrowed: a client's Secret name is replaced by the server's", async () => {
    const other = `${name}-borrower`;
    const plain = manifest(kind, other, VALID_SPECS[kind]);
    const annotations = { [SECRET_ANNOTATION]: secretName, kept: "yes" };
    const body = { ...plain, metadata: { ...plain.metadata, annotations } };
    const created = await call("POST", pathOf(kind), { body });
    expect(created.status).toBe(201);
    expect(created.body.metadata.annotations).toEqual({ kept: "yes" });
  });
});

describe("a change of secret values", () => {
  const name = "rotated";
  const withKey = (key: string) => ({
    telemetry: { thirdPartySinks: { vendorAlphaLogs: { key } } },
  });

  it("gets a new name; the old name is gone, a dry run names nothing new", async () => {
    const created = await call("POST", pathOf("Proxy"), {
      body: manifest("Proxy", name, withKey("first-key")),
    });
    const first = annotationOf(created.body) as string;

    const dryRun = await call("PATCH", `${pathOf("Proxy", name)}?dryRun=All`, {
      body: { spec: withKey("dry-key") },
      contentType: "application/merge-patch+json",
    });
    expect(dryRun.status).toBe(200);
    expect(annotationOf(dryRun.body)).toBeUndefined();

    const rotated = await call("PATCH", pathOf("Proxy", name), {
      body: { spec: withKey("second-key") },
      contentType: "application/merge-patch+json",
    });
    const second = annotationOf(rotated.body) as string;
    expect(second).not.toBe(first);
    expect((await call("GET", secretPath(first), { token: CONTROLLER_TOKEN })).status).toBe(404);
    const secret = await call("GET", secretPath(second), { token: CONTROLLER_TOKEN });
    expect(Object.values(secret.body.data).map((v) => Buffer.from(v as string, "base64").toString())).toEqual(
      ["second-key"],
    );

    const cleared = await call("PATCH", pathOf("Proxy", name), {
      body: { spec: { telemetry: null } },
      contentType: "application/merge-patch+json",
    });
    expect(annotationOf(cleared.body)).toBeUndefined();
    expect((await call("GET", secretPath(second), { token: CONTROLLER_TOKEN })).status).toBe(404);
  });

  it("names no Secret outside the namespace, and none that is not an object's", async () => {
    for (const path of [secretPath("proxies.rotated-00000000"), secretPath("anything", "default")]) {
      const answer = await call("GET", path, { token: CONTROLLER_TOKEN });
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ kind: "Status", reason: "NotFound" });
    }
  });
});
