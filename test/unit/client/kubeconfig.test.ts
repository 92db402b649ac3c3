import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { type ConfigSource, resolveSettings, settingProblems } from "../../../provider/settings";
import { KubeconfigError, readKubeconfig } from "../../../sdk/client/kubeconfig";

/** Looks like PEM to the reader (it checks the armour only; TLS checks the rest). */
const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
const CA = pem("CERTIFICATE", "Y2EtY2VydGlmaWNhdGU=");
const CLIENT_CERT = pem("CERTIFICATE", "Y2xpZW50LWNlcnQ=");
const CLIENT_KEY = pem("PRIVATE KEY", "c2VjcmV0LWtleS1ib2R5LTQ3MTE=");
const TOKEN = "kubeconfig-token-5f1c9a";
const FILE_TOKEN = "file-token-8d2e44";
const b64 = (value: string) => Buffer.from(value).toString("base64");

let dir: string;
let count = 0;

/** Writes a kubeconfig into its own directory (so relative paths are relative to it); returns its path. */
function kubeconfig(config: unknown, files: Record<string, string> = {}): string {
  const home = path.join(dir, `config-${count++}`);
  mkdirSync(home, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(home, name)), { recursive: true });
    writeFileSync(path.join(home, name), content);
  }
  const file = path.join(home, "config");
  writeFileSync(file, typeof config === "string" ? config : stringify(config));
  return file;
}

/** A kubeconfig with two contexts: `dev` (the current one, token user) and `prod` (client-certificate user). */
function twoContexts(extra: { dev?: object; prod?: object; devUser?: object; prodUser?: object } = {}) {
  return {
    apiVersion: "v1",
    kind: "Config",
    "current-context": "dev",
    clusters: [
      {
        name: "dev-cluster",
        cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": b64(CA), ...extra.dev },
      },
      { name: "prod-cluster", cluster: { server: "https://prod.example.dev:443", ...extra.prod } },
    ],
    users: [
      { name: "dev-user", user: { token: TOKEN, ...extra.devUser } },
      {
        name: "prod-user",
        user: {
          "client-certificate-data": b64(CLIENT_CERT),
          "client-key-data": b64(CLIENT_KEY),
          ...extra.prodUser,
        },
      },
    ],
    contexts: [
      { name: "dev", context: { cluster: "dev-cluster", user: "dev-user", namespace: "ignored" } },
      { name: "prod", context: { cluster: "prod-cluster", user: "prod-user" } },
    ],
  };
}

/** The error of `read`, which must throw a KubeconfigError that repeats no secret. */
function failure(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(KubeconfigError);
    const message = (error as Error).message;
    for (const secret of [TOKEN, FILE_TOKEN, CLIENT_KEY, "c2VjcmV0LWtleS1ib2R5LTQ3MTE="]) {
      expect(message).not.toContain(secret);
    }
    return message;
  }
  throw new Error("expected the kubeconfig to be refused");
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "exampledev-kubeconfig-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("readKubeconfig: the context", () => {
  test("uses current-context when no context is named", () => {
    expect(readKubeconfig(kubeconfig(twoContexts()))).toEqual({
      baseUrl: "https://127.0.0.1:6443",
      ca: CA,
      token: TOKEN,
    });
  });

  test("uses the named context over current-context", () => {
    expect(readKubeconfig(kubeconfig(twoContexts()), { context: "prod" })).toEqual({
      baseUrl: "https://prod.example.dev:443",
      cert: CLIENT_CERT,
      key: CLIENT_KEY,
    });
  });

  test("names the file and the contexts it has when the context is missing", () => {
    const file = kubeconfig(twoContexts());
    expect(failure(() => readKubeconfig(file, { context: "staging" }))).toBe(
      `kubeconfig ${file}: no context named "staging" (it has "dev", "prod"); choose one with \`context\``,
    );
  });

  test("asks for a context when there is no current-context", () => {
    const { "current-context": _current, ...config } = twoContexts();
    const message = failure(() =>
      readKubeconfig(kubeconfig(config), { contextSetting: "exampledev:context" }),
    );
    expect(message).toContain("no context chosen and no current-context: name one with exampledev:context");
    expect(message).toContain('it has "dev", "prod"');
  });

  test("names the context and the missing cluster or user", () => {
    const config = twoContexts();
    config.contexts.push({ name: "broken", context: { cluster: "gone", user: "dev-user" } });
    config.contexts.push({ name: "nobody", context: { cluster: "dev-cluster", user: "ghost" } });
    const file = kubeconfig(config);
    expect(failure(() => readKubeconfig(file, { context: "broken" }))).toBe(
      `kubeconfig ${file}, context "broken": no cluster named "gone" (it has "dev-cluster", "prod-cluster")`,
    );
    expect(failure(() => readKubeconfig(file, { context: "nobody" }))).toBe(
      `kubeconfig ${file}, context "nobody": no user named "ghost" (it has "dev-user", "prod-user")`,
    );
  });

  test("a context without a user is anonymous", () => {
    const config = twoContexts();
    config.contexts.push({ name: "anonymous", context: { cluster: "dev-cluster" } } as never);
    expect(readKubeconfig(kubeconfig(config), { context: "anonymous" })).toEqual({
      baseUrl: "https://127.0.0.1:6443",
      ca: CA,
    });
  });
});

describe("readKubeconfig: the cluster", () => {
  test("reads certificate-authority from a file relative to the kubeconfig's directory", () => {
    const file = kubeconfig(
      twoContexts({
        dev: { "certificate-authority-data": undefined, "certificate-authority": "pki/ca.crt" },
      }),
      { "pki/ca.crt": CA },
    );
    expect(readKubeconfig(file).ca).toBe(CA);
  });

  test("prefers certificate-authority-data to certificate-authority, as kubectl does", () => {
    const file = kubeconfig(twoContexts({ dev: { "certificate-authority": "missing.crt" } }));
    expect(readKubeconfig(file).ca).toBe(CA);
  });

  test("reads an absolute certificate-authority path as given", () => {
    const elsewhere = kubeconfig("unused", { "ca.pem": CA });
    const caFile = path.join(path.dirname(elsewhere), "ca.pem");
    const file = kubeconfig(
      twoContexts({ dev: { "certificate-authority-data": undefined, "certificate-authority": caFile } }),
    );
    expect(readKubeconfig(file).ca).toBe(CA);
  });

  test("names the file it cannot read, resolved", () => {
    const file = kubeconfig(
      twoContexts({ dev: { "certificate-authority-data": undefined, "certificate-authority": "gone.crt" } }),
    );
    expect(failure(() => readKubeconfig(file))).toBe(
      `kubeconfig ${file}, context "dev", cluster "dev-cluster": cannot read the certificate-authority file ${path.join(path.dirname(file), "gone.crt")} (ENOENT)`,
    );
  });

  test("takes insecure-skip-tls-verify, and refuses it beside a certificate authority as kubectl does", () => {
    const insecure = kubeconfig(twoContexts({ prod: { "insecure-skip-tls-verify": true } }));
    expect(readKubeconfig(insecure, { context: "prod" })).toMatchObject({ insecureSkipTlsVerify: true });
    const both = kubeconfig(twoContexts({ dev: { "insecure-skip-tls-verify": true } }));
    expect(failure(() => readKubeconfig(both))).toContain(
      "insecure-skip-tls-verify and a certificate authority cannot both be set",
    );
  });

  test("gives a server without a scheme https when TLS is configured, http otherwise", () => {
    const config = twoContexts({ dev: { server: "127.0.0.1:6443" }, prod: { server: "localhost:8080" } });
    const file = kubeconfig(config);
    expect(readKubeconfig(file).baseUrl).toBe("https://127.0.0.1:6443");
    expect(readKubeconfig(file, { context: "prod" }).baseUrl).toBe("http://localhost:8080");
  });

  test("refuses a server with credentials without repeating it", () => {
    const file = kubeconfig(twoContexts({ dev: { server: `https://admin:${TOKEN}@127.0.0.1:6443` } }));
    expect(failure(() => readKubeconfig(file, { tokenSetting: "exampledev:token" }))).toContain(
      "the cluster's server must not contain credentials: pass the API token as exampledev:token",
    );
  });

  test("says when the cluster has no server", () => {
    const file = kubeconfig(twoContexts({ dev: { server: "" } }));
    expect(failure(() => readKubeconfig(file))).toBe(
      `kubeconfig ${file}, context "dev", cluster "dev-cluster": the cluster has no server`,
    );
  });

  test("refuses cluster settings this client does not implement", () => {
    const file = kubeconfig(twoContexts({ dev: { "proxy-url": "http://proxy:3128" } }));
    expect(failure(() => readKubeconfig(file))).toContain("proxy-url is not supported");
  });
});

describe("readKubeconfig: the user", () => {
  test("reads tokenFile relative to the kubeconfig's directory, trimmed", () => {
    const file = kubeconfig(twoContexts({ devUser: { token: undefined, tokenFile: "secrets/token" } }), {
      "secrets/token": `${FILE_TOKEN}\n`,
    });
    expect(readKubeconfig(file).token).toBe(FILE_TOKEN);
  });

  test("prefers token to tokenFile, as kubectl does", () => {
    const file = kubeconfig(twoContexts({ devUser: { tokenFile: "missing" } }));
    expect(readKubeconfig(file).token).toBe(TOKEN);
  });

  test("refuses an empty tokenFile", () => {
    const file = kubeconfig(twoContexts({ devUser: { token: undefined, tokenFile: "token" } }), {
      token: "\n",
    });
    expect(failure(() => readKubeconfig(file))).toBe(
      `kubeconfig ${file}, context "dev", user "dev-user": the tokenFile is empty`,
    );
  });

  test("reads the client certificate and key from files relative to the kubeconfig", () => {
    const user = {
      "client-certificate-data": undefined,
      "client-key-data": undefined,
      "client-certificate": "client.crt",
      "client-key": "./keys/client.key",
    };
    const file = kubeconfig(twoContexts({ prodUser: user }), {
      "client.crt": CLIENT_CERT,
      "keys/client.key": CLIENT_KEY,
    });
    expect(readKubeconfig(file, { context: "prod" })).toMatchObject({ cert: CLIENT_CERT, key: CLIENT_KEY });
  });

  test("refuses a client certificate without its key, and data that is not PEM, without repeating the key", () => {
    const noKey = kubeconfig(twoContexts({ prodUser: { "client-key-data": undefined } }));
    expect(failure(() => readKubeconfig(noKey, { context: "prod" }))).toBe(
      `kubeconfig ${noKey}, context "prod", user "prod-user": a client-certificate without a client-key`,
    );
    const notPem = kubeconfig(
      twoContexts({ prodUser: { "client-key-data": "c2VjcmV0LWtleS1ib2R5LTQ3MTE=" } }),
    );
    expect(failure(() => readKubeconfig(notPem, { context: "prod" }))).toContain(
      "client-key-data is not base64 of PEM",
    );
  });

  test.each([
    ["exec", { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "aws" } }],
    ["auth-provider", { "auth-provider": { name: "oidc", config: { "id-token": TOKEN } } }],
  ])("refuses an %s user, saying to give a token instead", (field, user) => {
    const file = kubeconfig(twoContexts({ devUser: { token: undefined, ...user } }));
    const message = failure(() => readKubeconfig(file, { tokenSetting: "exampledev:token" }));
    expect(message).toContain(`context "dev", user "dev-user": ${field} credentials`);
    expect(message).toContain("are not supported: give a bearer token instead with exampledev:token");
  });

  test("an exec user is no error when the token is given elsewhere", () => {
    const file = kubeconfig(twoContexts({ devUser: { token: undefined, exec: { command: "aws" } } }));
    expect(readKubeconfig(file, { given: { token: true } })).toEqual({
      baseUrl: "https://127.0.0.1:6443",
      ca: CA,
    });
  });
});

describe("readKubeconfig: the file", () => {
  test("names a file that does not exist", () => {
    const file = path.join(dir, "nowhere", "config");
    expect(failure(() => readKubeconfig(file))).toBe(`kubeconfig ${file}: cannot read it (ENOENT)`);
  });

  test("reports YAML errors by position, never quoting the line (it may hold a token)", () => {
    const file = kubeconfig(`users:\n- name: dev\n  user:\n    token: "${TOKEN}\n  bad: [\n`);
    expect(failure(() => readKubeconfig(file))).toMatch(/is not YAML \(\w+ at line \d+, column \d+\)$/);
  });

  test("validates the shape with messages naming the field, never its value", () => {
    const file = kubeconfig({
      clusters: [{ cluster: { server: 6443 } }],
      users: [{ name: "u", user: { token: 5 } }],
    });
    const message = failure(() => readKubeconfig(file));
    expect(message).toContain("clusters.0.name needs a name");
    expect(message).toContain("clusters.0.cluster.server must be a string");
    expect(message).toContain("users.0.user.token must be a string");
    expect(message).not.toContain("6443");
    const notLists = kubeconfig({ kind: "Pod", contexts: { dev: {} } });
    expect(failure(() => readKubeconfig(notLists))).toBe(
      `kubeconfig ${notLists}: kind must be "Config"; contexts must be a list`,
    );
  });
});

describe("the provider's settings with a kubeconfig", () => {
  const source = (values: Record<string, string>): ConfigSource => ({ get: (key) => values[key] });

  test("takes everything from exampledev:kubeconfig", () => {
    const file = kubeconfig(twoContexts());
    expect(resolveSettings(source({ "exampledev:kubeconfig": file }), {})).toMatchObject({
      baseUrl: "https://127.0.0.1:6443",
      ca: CA,
      token: TOKEN,
    });
  });

  test("takes the context from exampledev:context, or EXAMPLEDEV_CONTEXT over it", () => {
    const file = kubeconfig(twoContexts());
    const config = source({ "exampledev:kubeconfig": file, "exampledev:context": "prod" });
    expect(resolveSettings(config, {})).toMatchObject({ cert: CLIENT_CERT, key: CLIENT_KEY });
    expect(resolveSettings(config, { EXAMPLEDEV_CONTEXT: "dev" })).toMatchObject({ token: TOKEN });
    expect(resolveSettings(source({}), { EXAMPLEDEV_KUBECONFIG: file })).toMatchObject({ token: TOKEN });
  });

  test("explicit baseUrl, token and caCertificate win over the kubeconfig, field by field", () => {
    const file = kubeconfig(twoContexts());
    const otherCa = pem("CERTIFICATE", "b3RoZXI=");
    const base = { "exampledev:kubeconfig": file };
    expect(resolveSettings(source({ ...base, "exampledev:baseUrl": "https://other:1" }), {})).toMatchObject({
      baseUrl: "https://other:1",
      ca: CA,
      token: TOKEN,
    });
    expect(resolveSettings(source(base), { EXAMPLEDEV_TOKEN: "explicit" })).toMatchObject({
      baseUrl: "https://127.0.0.1:6443",
      token: "explicit",
    });
    expect(resolveSettings(source({ ...base, "exampledev:caCertificate": otherCa }), {})).toMatchObject({
      ca: otherCa,
      token: TOKEN,
    });
    const caFile = path.join(path.dirname(file), "other-ca.pem");
    writeFileSync(caFile, otherCa);
    expect(resolveSettings(source({ ...base, "exampledev:caCertificateFile": caFile }), {}).ca).toBe(otherCa);
  });

  test("an explicit CA replaces the kubeconfig's insecure-skip-tls-verify too", () => {
    const file = kubeconfig(twoContexts({ prod: { "insecure-skip-tls-verify": true } }));
    const config = { "exampledev:kubeconfig": file, "exampledev:context": "prod" };
    expect(resolveSettings(source(config), {}).insecureSkipTlsVerify).toBe(true);
    const settings = resolveSettings(source({ ...config, "exampledev:caCertificate": CA }), {});
    expect(settings.insecureSkipTlsVerify).toBeUndefined();
    expect(settings.ca).toBe(CA);
  });

  test("errors name the setting, the file and the context", () => {
    const file = kubeconfig(twoContexts({ devUser: { token: undefined, exec: { command: "gcloud" } } }));
    expect(() => resolveSettings(source({ "exampledev:kubeconfig": file }), {})).toThrow(
      `exampledev:kubeconfig (or EXAMPLEDEV_KUBECONFIG): kubeconfig ${file}, context "dev", user "dev-user": exec credentials`,
    );
  });

  test("exampledev:context without a kubeconfig is an error, checked up front too", () => {
    const config = source({ "exampledev:baseUrl": "http://127.0.0.1:8080", "exampledev:context": "dev" });
    expect(() => resolveSettings(config, {})).toThrow(
      "exampledev:context (or EXAMPLEDEV_CONTEXT) chooses a kubeconfig context, but no kubeconfig is set",
    );
    expect(settingProblems(config, {}).map(({ name }) => name)).toEqual(["context"]);
  });

  test("with neither an address nor a kubeconfig, says how to give either", () => {
    expect(() => resolveSettings(source({}), {})).toThrow("or point exampledev:kubeconfig at a kubeconfig");
  });
});
