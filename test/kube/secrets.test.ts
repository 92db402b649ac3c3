import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { LAST_APPLIED } from "../../admission";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { createRawClient, type RawClient } from "../../sdk/client/raw";
import {
  joinSecrets,
  KIND_NAMES,
  KINDS,
  type KindName,
  PLACEHOLDERS,
  SECRET_ANNOTATION,
  SECRETS_NAMESPACE,
  secretNameOf,
} from "../../sdk/schema";
import { DIGEST } from "../api/fixtures";
import { manifest, pathOf } from "../helpers/server";

/**
 * Secret values on the real API server: the mutating webhook moves them into Secrets (encrypted at rest),
 * so no answer of the API server and no file of etcd holds one, while the values stay readable to the
 * controller through the Secret the object names.
 */

const run = promisify(execFile);
const REPO = "registry.example.dev/team/app";
const RUNTIME = { compatibilityDate: "2024-09-01" };
const SECRETS_PATH = `/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets`;
const MERGE = "application/merge-patch+json";
/** Short enough for the test to see the sweep; a cluster's default is a minute. */
const SWEEP = { intervalMs: 200, graceMs: 1_500 };

/** A value that appears nowhere else, so finding its bytes means finding this very secret. */
const secret = (label: string) => `${label}-${randomBytes(12).toString("hex")}`;
/** keyData holds base64. */
const base64Secret = (label: string) => Buffer.from(secret(label)).toString("base64");

const VALUES = {
  alphaLogsKey: secret("alpha-logs-key"),
  alphaTracesKey: secret("alpha-traces-key"),
  betaLogsKeyData: base64Secret("beta-logs-key-data"),
  betaTracesKeyData: base64Secret("beta-traces-key-data"),
  password: secret("password"),
  passwordData: secret("password-data"),
  accessToken: secret("access-token"),
  refreshToken: secret("refresh-token"),
  gitOutputPassword: secret("git-output-password"),
  revisionToken: secret("revision-token"),
  kubectlApplied: secret("kubectl-applied"),
};

/** Applied with `kubectl apply` (client-side), which keeps the whole configuration in an annotation. */
const APPLIED_PROXY = stringify({
  apiVersion: KINDS.Proxy.apiVersion,
  kind: "Proxy",
  metadata: { name: "applied" },
  spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: VALUES.kubectlApplied } } } },
});

const oci = (credentials: Record<string, string>) => ({
  oci: { repo: REPO, digest: DIGEST, credentials: { username: "robot", ...credentials } },
});

/** Every secret field of every kind, set. */
const OBJECTS: readonly { kind: KindName; name: string; spec: Record<string, unknown> }[] = [
  {
    kind: "Proxy",
    name: "sinks",
    spec: {
      telemetry: {
        thirdPartySinks: {
          vendorAlphaLogs: { key: VALUES.alphaLogsKey },
          vendorAlphaTraces: { key: VALUES.alphaTracesKey },
          vendorBetaLogs: { keyData: VALUES.betaLogsKeyData },
          vendorBetaTraces: { keyData: VALUES.betaTracesKeyData },
        },
      },
    },
  },
  {
    kind: "Service",
    name: "password",
    spec: { source: oci({ password: VALUES.password }), template: { spec: { runtime: RUNTIME } } },
  },
  {
    kind: "Service",
    name: "tokens",
    spec: {
      source: oci({
        passwordData: VALUES.passwordData,
        accessToken: VALUES.accessToken,
        refreshToken: VALUES.refreshToken,
      }),
      template: { spec: { runtime: RUNTIME } },
    },
  },
  {
    kind: "Service",
    name: "git-output",
    spec: {
      source: {
        git: {
          url: "https://git.example.dev/team/app",
          triggers: {},
          build: {
            output: { repo: REPO, credentials: { username: "ci", password: VALUES.gitOutputPassword } },
          },
        },
      },
      template: { spec: { runtime: RUNTIME } },
    },
  },
  {
    kind: "ServiceRevision",
    name: "pinned",
    spec: {
      bundle: { repo: REPO, digest: DIGEST, credentials: { accessToken: VALUES.revisionToken } },
      runtime: RUNTIME,
    },
  },
];

/** The labels of the values found in `text`. */
function leaked(text: string | Buffer): string[] {
  return Object.entries(VALUES)
    .filter(([, value]) => text.includes(value))
    .map(([label]) => label);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

const until = async (check: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe("secret values on the real API server", () => {
  let api: KubeApi;
  let admin: RawClient;
  const read = async (kind: KindName, name: string) =>
    admin.ok<Record<string, unknown> & { metadata: Record<string, unknown> }>("GET", pathOf(kind, name));
  const secretNames = async () =>
    (await admin.ok<{ items: { metadata: { name: string } }[] }>("GET", SECRETS_PATH)).items.map(
      ({ metadata }) => metadata.name,
    );
  const secretExists = async (name: string) =>
    (await admin.call("GET", `${SECRETS_PATH}/${name}`)).status === 200;
  const ownerOf = async (name: string) => {
    const secret = await admin.ok<{ metadata: { ownerReferences?: { uid: string }[] } }>(
      "GET",
      `${SECRETS_PATH}/${name}`,
    );
    return secret.metadata.ownerReferences?.[0]?.uid;
  };

  beforeAll(async () => {
    api = await startKubeApi({ sweep: SWEEP, drainProxies: false });
    admin = createRawClient({
      baseUrl: api.url,
      token: api.token,
      ca: api.caCert,
      userAgent: "secrets-test",
    });
    for (const { kind, name, spec } of OBJECTS)
      await admin.ok("POST", pathOf(kind), manifest(kind, name, spec));
    const manifestFile = path.join(api.dir, "applied.yaml");
    await writeFile(manifestFile, APPLIED_PROXY);
    // Twice: the second compares with the annotation, which holds the placeholder, and sets the same value.
    for (let round = 0; round < 2; round++)
      await run("kubectl", [`--kubeconfig=${api.kubeconfig}`, "apply", "-f", manifestFile]);
  });
  afterAll(async () => {
    await admin?.close();
    await api?.close();
  });

  it("answers GET, LIST, WATCH, Table and kubectl -o yaml with placeholders only", async () => {
    const kubectlGet = async (kind: KindName, output: string) =>
      (await run("kubectl", [`--kubeconfig=${api.kubeconfig}`, "get", KINDS[kind].plural, "-o", output]))
        .stdout;
    const answers: string[] = [];
    for (const { kind, name } of OBJECTS) answers.push(JSON.stringify(await read(kind, name)));
    for (const kind of KIND_NAMES) {
      answers.push(JSON.stringify(await admin.ok("GET", pathOf(kind))));
      // The watch's answer as sent: a stream of events, which the server ends after a second.
      const watch = `${pathOf(kind)}?watch=1&resourceVersion=0&timeoutSeconds=1`;
      answers.push((await run("kubectl", [`--kubeconfig=${api.kubeconfig}`, "get", "--raw", watch])).stdout);
      answers.push(await kubectlGet(kind, "yaml"));
      // kubectl's wide output asks for a Table.
      answers.push(await kubectlGet(kind, "wide"));
    }
    expect(answers.flatMap(leaked)).toEqual([]);

    const proxy = await read("Proxy", "sinks");
    expect(proxy.spec).toMatchObject({
      telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: PLACEHOLDERS.apiKey } } },
    });
    // The write-only password is moved to passwordData first, as the local server stores it.
    const service = await read("Service", "password");
    expect(service.spec).toMatchObject({
      source: { oci: { credentials: { username: "robot", passwordData: PLACEHOLDERS.passwordData } } },
    });
  });

  it("keeps no raw value in etcd's files; the Secrets are there, encrypted", async () => {
    const files = await filesUnder(path.join(api.dir, "etcd"));
    const contents = await Promise.all(files.map((file) => readFile(file)));
    expect(contents.flatMap(leaked)).toEqual([]);
    // Each object's Secret is stored, as secretbox ciphertext.
    const encrypted = contents.some((bytes) => bytes.includes("k8s:enc:secretbox:v1:key1"));
    expect(encrypted).toBe(true);
    // kubectl apply kept its configuration with the placeholder, and the value in the Secret.
    const applied = await read("Proxy", "applied");
    expect(applied.metadata.annotations).toMatchObject({
      [LAST_APPLIED]: expect.stringContaining(PLACEHOLDERS.apiKey),
    });
    const values = await api.admission.secrets.valuesOf(applied);
    expect(values["spec.telemetry.thirdPartySinks.vendorAlphaLogs.key"]).toBe(VALUES.kubectlApplied);
    for (const log of ["kube-apiserver.log", "etcd.log"])
      expect(leaked(await readFile(path.join(api.dir, log)))).toEqual([]);
  });

  it("keeps every value in the Secret the object names, for the controller", async () => {
    for (const { kind, name, spec } of OBJECTS) {
      const object = await read(kind, name);
      const values = await api.admission.secrets.valuesOf(object);
      const joined = joinSecrets(kind, object.spec as Record<string, unknown>, values);
      // What the controller runs with: the spec as sent, defaults filled, password moved to passwordData.
      for (const value of Object.values(VALUES).filter((value) => JSON.stringify(spec).includes(value)))
        expect(JSON.stringify(joined)).toContain(value);
    }
  });

  it("keeps the Secret when the placeholders are written back, and mints a new one for a new value", async () => {
    const before = await read("Proxy", "sinks");
    const first = secretNameOf(before) as string;
    // A client writing back what it read (placeholders) changes no secret.
    const replaced = await admin.ok<Record<string, unknown>>("PUT", pathOf("Proxy", "sinks"), {
      ...before,
      spec: { ...(before.spec as object), provider: "cloud" },
    });
    expect(secretNameOf(replaced)).toBe(first);

    const rotated = secret("rotated-key");
    const patched = await admin.ok<{ metadata: { uid: string } }>(
      "PATCH",
      pathOf("Proxy", "sinks"),
      { spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: rotated } } } } },
      MERGE,
    );
    const second = secretNameOf(patched) as string;
    expect(second).not.toBe(first);
    const values = await api.admission.secrets.valuesOf(patched);
    expect(values["spec.telemetry.thirdPartySinks.vendorAlphaLogs.key"]).toBe(rotated);
    expect(values["spec.telemetry.thirdPartySinks.vendorBetaTraces.keyData"]).toBe(VALUES.betaTracesKeyData);
    expect(JSON.stringify(patched)).not.toContain(rotated);
    // The previous values are deleted once no object names them.
    await until(async () => !(await secretExists(first)), `Secret ${first} to be swept`);
    // The live one is owned by its object, so the garbage collector deletes it with the object.
    await until(async () => (await ownerOf(second)) === patched.metadata.uid, "the owner reference");
  });

  it("does not let a client point an object at another object's Secret", async () => {
    const other = secretNameOf(await read("Service", "tokens")) as string;
    const created = await admin.ok<Record<string, unknown>>(
      "POST",
      pathOf("Proxy"),
      manifest("Proxy", "borrower", {}, { annotations: { [SECRET_ANNOTATION]: other } }),
    );
    expect(secretNameOf(created)).toBeUndefined();
  });

  it("mints nothing on a dry run, and sweeps what a failed write minted", async () => {
    const before = await secretNames();
    const dryRun = await admin.call(
      "POST",
      `${pathOf("Proxy")}?dryRun=All`,
      manifest("Proxy", "dry", {
        telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: secret("dry") } } },
      }),
    );
    expect(dryRun.status).toBe(201);
    expect(await secretNames()).toEqual(before);

    // A stale resourceVersion fails after admission: the Secret minted for it is never named, and goes.
    const current = await read("Service", "tokens");
    const failed = await admin.call(
      "PATCH",
      pathOf("Service", "tokens"),
      {
        metadata: { resourceVersion: "1" },
        spec: { source: { oci: { credentials: { accessToken: secret("lost") } } } },
      },
      MERGE,
    );
    expect(failed.status).toBe(409);
    const minted = (await secretNames()).filter((name) => !before.includes(name));
    expect(minted).toHaveLength(1);
    await until(async () => !(await secretExists(minted[0] as string)), "the orphaned Secret to be swept");
    const values = await api.admission.secrets.valuesOf(await read("Service", "tokens"));
    expect(values["spec.source.oci.credentials.accessToken"]).toBe(VALUES.accessToken);
    expect(secretNameOf(await read("Service", "tokens"))).toBe(secretNameOf(current));
  });

  it("deletes an object's Secret with the object: the garbage collector follows the owner reference", async () => {
    const pinned = await read("ServiceRevision", "pinned");
    const name = secretNameOf(pinned) as string;
    await until(async () => (await ownerOf(name)) === pinned.metadata.uid, "the owner reference");
    // A finalizer keeps the object, which names the Secret, while Foreground propagation deletes its
    // dependents: the sweep keeps a named Secret, so only the garbage collector can delete it.
    const hold = (finalizers: string[] | null) =>
      admin.ok("PATCH", pathOf("ServiceRevision", "pinned"), { metadata: { finalizers } }, MERGE);
    await hold(["example.dev/hold"]);
    await admin.ok("DELETE", `${pathOf("ServiceRevision", "pinned")}?propagationPolicy=Foreground`);
    await until(async () => !(await secretExists(name)), `Secret ${name} to be collected`);
    expect(secretNameOf(await read("ServiceRevision", "pinned"))).toBe(name);
    // Its values went with the Secret: the webhook lets its metadata change (the finalizer), not its spec.
    const changed = await admin.call(
      "PATCH",
      pathOf("ServiceRevision", "pinned"),
      { spec: { runtime: { compatibilityDate: "2025-01-01" } } },
      MERGE,
    );
    expect(changed.status).toBe(409);
    await hold(null);
    await until(
      async () => (await admin.call("GET", pathOf("ServiceRevision", "pinned"))).status === 404,
      "the ServiceRevision to go",
    );
  });
});
